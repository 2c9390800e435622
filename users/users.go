// Package users holds the admin accounts of the web panel.
package users

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/audit"
	"tracker/db"
	"tracker/refusal"
)

// Roles.
const (
	RoleAdmin        = "admin"         // every project, users, global settings
	RoleProjectAdmin = "project_admin" // the projects granted to the account
)

var ErrExists = errors.New("a user with that name exists already")

// invalidf is a change to an account refused for what was asked (a short
// password, an unknown role), not for a failure of the tracker.
func invalidf(format string, args ...any) error {
	return refusal.Invalidf("invalid-user", format, args...)
}

// bcryptCost makes one hash take a few hundred milliseconds: slow for anyone
// guessing offline, fine for a login form.
const bcryptCost = 12

// MinPasswordRunes is the shortest password accepted.
const MinPasswordRunes = 10

var usernameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// Store reads and writes accounts.
type Store struct {
	pool *pgxpool.Pool
	q    *db.Queries
	// now is the sign-in throttle's clock.
	now func() time.Time
}

func NewStore(pool *pgxpool.Pool) *Store { return &Store{pool: pool, q: db.Of(pool), now: time.Now} }

// Create adds an account with the given role and password.
func (s *Store) Create(ctx context.Context, username, password, role string) (Account, error) {
	if !usernameRE.MatchString(username) {
		return Account{}, invalidf("invalid username %q: 1-64 letters, digits, '.', '-' and '_'", username)
	}
	if role != RoleAdmin && role != RoleProjectAdmin {
		return Account{}, invalidf("unknown role %q", role)
	}
	hash, err := hashPassword(password)
	if err != nil {
		return Account{}, err
	}
	var u db.User
	err = db.WithTx(ctx, s.pool, func(q *db.Queries) error {
		var err error
		if u, err = q.UserInsert(ctx, db.UserInsertParams{Username: username, PasswordHash: hash, Role: role}); err != nil {
			return err
		}
		return audit.Record(ctx, q, "user.create", 0, map[string]any{"user": username, "role": role})
	})
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return Account{}, refusal.New(refusal.Conflict, "user-exists", fmt.Errorf("%w: %s", ErrExists, username))
	}
	return account(u, nil), err
}
