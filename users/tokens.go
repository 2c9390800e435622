package users

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"

	"tracker/audit"
	"tracker/db"
	"tracker/refusal"
)

// API token scopes: a read token reads a project's configuration, counts
// and audit log; a write token changes them too.
const (
	ScopeRead  = "read"
	ScopeWrite = "write"
)

// MaxTokenName bounds a token's name, in bytes: it is shown in lists and
// written into every audit entry the token makes.
const MaxTokenName = 100

// tokenPrefix starts every token, so that one pasted where it should not
// be (a chat, a repository) is recognised for what it is.
const tokenPrefix = "trk_"

// tokenSecretBytes is the randomness of a token's secret: 256 bits, so
// its SHA-256 is all the database needs to keep (nothing to guess
// offline, unlike a password, which needs bcrypt).
const tokenSecretBytes = 32

// ErrBadToken is every token refused for what it is: malformed, unknown,
// or with a wrong secret, so the answer does not tell which ids exist.
var ErrBadToken = errors.New("not a valid API token")

// ErrRevokedToken is a token whose secret is right but that was revoked.
var ErrRevokedToken = errors.New("this API token was revoked")

// ErrNoToken means no token has that id (or not one of that account's).
var ErrNoToken = errors.New("no such API token")

// Token is an API token, without its secret.
type Token struct {
	ID       int32
	UserID   int32
	Username string // in lists of every account's tokens
	Name     string
	Scope    string
	// Projects are the ids of the projects it acts on; nil: every project
	// its account runs.
	Projects   []int32
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

func tokenOf(t db.ApiToken) Token {
	return Token{ID: t.ID, UserID: t.UserID, Name: t.Name, Scope: t.Scope, Projects: t.ProjectIds,
		CreatedAt: t.CreatedAt, LastUsedAt: t.LastUsedAt, RevokedAt: t.RevokedAt}
}

// CanWrite says whether the token may change things.
func (t Token) CanWrite() bool { return t.Scope == ScopeWrite }

// Covers says whether the token may act on the project, as far as its own
// list goes (its account must run the project too: see Account.CanRun).
func (t Token) Covers(projectID int32) bool {
	return t.Projects == nil || slices.Contains(t.Projects, projectID)
}

// AllProjects says whether the token acts on whatever its account runs:
// only such a token of a global admin does what only global admins do.
func (t Token) AllProjects() bool { return t.Projects == nil }

// ValidTokenName refuses a name a token cannot have.
func ValidTokenName(name string) error {
	if name == "" || len(name) > MaxTokenName {
		return refusal.Invalidf("invalid-token", "a token's name is 1 to %d bytes", MaxTokenName)
	}
	if strings.ContainsFunc(name, unicode.IsControl) {
		return refusal.Invalidf("invalid-token", "a token's name is one line without control characters")
	}
	return nil
}

// CreateToken makes a token for owner, acting on projects (nil: every
// project owner runs, now and later), and returns it with its secret: the
// one time the secret is seen, as only its hash is kept.
func (s *Store) CreateToken(ctx context.Context, owner Account, name, scope string, projects []int32) (Token, string, error) {
	if err := ValidTokenName(name); err != nil {
		return Token{}, "", err
	}
	if scope != ScopeRead && scope != ScopeWrite {
		return Token{}, "", refusal.Invalidf("invalid-token", "unknown scope %q: read or write", scope)
	}
	if projects != nil && len(projects) == 0 {
		// Stored, no list is every project: an empty one must not be.
		return Token{}, "", refusal.Invalidf("invalid-token", "a token of some projects names at least one")
	}
	for _, id := range projects {
		if !owner.CanRun(id) {
			return Token{}, "", refusal.Invalidf("invalid-token", "%s does not run project %d", owner.Username, id)
		}
	}
	if projects != nil {
		projects = slices.Compact(slices.Sorted(slices.Values(projects)))
	}
	raw := make([]byte, tokenSecretBytes)
	rand.Read(raw) // never fails (crypto/rand)
	secret := base64.RawURLEncoding.EncodeToString(raw)
	hash := sha256.Sum256([]byte(secret))
	var row db.ApiToken
	err := db.WithTx(ctx, s.pool, func(q *db.Queries) error {
		var err error
		row, err = q.APITokenInsert(ctx, db.APITokenInsertParams{UserID: owner.ID, Name: name, SecretHash: hash[:], Scope: scope, ProjectIds: projects})
		if err != nil {
			return err
		}
		return owner.record(ctx, q, "token.create", 0, map[string]any{"id": row.ID, "name": name, "scope": scope, "projects": projects})
	})
	if err != nil {
		return Token{}, "", err
	}
	t := tokenOf(row)
	t.Username = owner.Username
	return t, fmt.Sprintf("%s%d_%s", tokenPrefix, row.ID, secret), nil
}

// Tokens lists an account's tokens, newest first, revoked ones too.
func (s *Store) Tokens(ctx context.Context, u Account) ([]Token, error) {
	rows, err := s.q.APITokensForUser(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	out := make([]Token, len(rows))
	for i, r := range rows {
		out[i] = tokenOf(r)
		out[i].Username = u.Username
	}
	return out, nil
}

// AllTokens lists every account's tokens, newest first.
func (s *Store) AllTokens(ctx context.Context) ([]Token, error) {
	rows, err := s.q.APITokensAll(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Token, len(rows))
	for i, r := range rows {
		out[i] = tokenOf(db.ApiToken{ID: r.ID, UserID: r.UserID, Name: r.Name, Scope: r.Scope, ProjectIds: r.ProjectIds,
			CreatedAt: r.CreatedAt, LastUsedAt: r.LastUsedAt, RevokedAt: r.RevokedAt})
		out[i].Username = r.Username
	}
	return out, nil
}

// RevokeToken revokes the token id of owner (0: of any account, as the
// shell may). A token revoked refuses its next request.
func (s *Store) RevokeToken(ctx context.Context, id, owner int32) (Token, error) {
	var t Token
	err := db.WithTx(ctx, s.pool, func(q *db.Queries) error {
		row, err := q.APITokenGet(ctx, id)
		if errors.Is(err, pgx.ErrNoRows) || err == nil && owner != 0 && row.UserID != owner {
			return ErrNoToken
		}
		if err != nil {
			return err
		}
		if row.RevokedAt != nil {
			t = tokenOf(row)
			return nil // revoked already: done
		}
		if row, err = q.APITokenRevoke(ctx, id); err != nil {
			return err
		}
		t = tokenOf(row)
		return audit.Record(ctx, q, "token.revoke", 0, map[string]any{"id": id, "name": row.Name})
	})
	return t, err
}

// Authenticate returns the token a request presented and the account it
// acts as, read now: a grant taken back or a role changed holds from the
// next request on. The secret is compared in constant time.
func (s *Store) Authenticate(ctx context.Context, presented string) (Account, Token, error) {
	id, secret, ok := parseToken(presented)
	if !ok {
		return Account{}, Token{}, ErrBadToken
	}
	row, err := s.q.APITokenGet(ctx, id)
	if errors.Is(err, pgx.ErrNoRows) {
		return Account{}, Token{}, ErrBadToken
	}
	if err != nil {
		return Account{}, Token{}, err
	}
	hash := sha256.Sum256([]byte(secret))
	if subtle.ConstantTimeCompare(hash[:], row.SecretHash) != 1 {
		return Account{}, Token{}, ErrBadToken
	}
	if row.RevokedAt != nil {
		return Account{}, Token{}, ErrRevokedToken
	}
	a, err := s.Account(ctx, row.UserID)
	if err != nil {
		return Account{}, Token{}, err
	}
	if err := s.q.APITokenUsed(ctx, id); err != nil {
		return Account{}, Token{}, err
	}
	t := tokenOf(row)
	t.Username = a.Username
	return a, t, nil
}

// parseToken cuts "trk_{id}_{secret}" into its id and secret.
func parseToken(s string) (int32, string, bool) {
	rest, ok := strings.CutPrefix(s, tokenPrefix)
	if !ok {
		return 0, "", false
	}
	idText, secret, ok := strings.Cut(rest, "_")
	if !ok || len(secret) != base64.RawURLEncoding.EncodedLen(tokenSecretBytes) {
		return 0, "", false
	}
	id, err := strconv.ParseInt(idText, 10, 32)
	if err != nil || id <= 0 {
		return 0, "", false
	}
	return int32(id), secret, true
}

// AccountByName reads the account named username (in any case) and its
// grants.
func (s *Store) AccountByName(ctx context.Context, username string) (Account, error) {
	u, err := s.q.UserGetByName(ctx, username)
	if errors.Is(err, pgx.ErrNoRows) {
		return Account{}, ErrNoUser
	}
	if err != nil {
		return Account{}, err
	}
	return s.Account(ctx, u.ID)
}
