package sites

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/singleflight"

	"tracker/audit"
	"tracker/db"
	"tracker/refusal"
)

// The state of a project's frontier, for people: how many sites are
// served, wait or are blocked, the busiest, one site's state; and an
// admin's block of a site. The engine (package items) keeps the state and
// moves the items: releasing a site's claims is its (ReleaseSite).

// ErrNotFound is a site the project has no row for.
var ErrNotFound = refusal.New(refusal.NotFound, "unknown-site", errors.New("no such site"))

// ErrNoName is a site asked for with no name.
var ErrNoName = errors.New("name a site (its host or registrable domain)")

// Summary counts a project's sites by state. Active sites have items out;
// due ones have items queued and may be handed out now; waiting ones have
// items queued and wait on their interval or their limit of items out;
// blocked ones are handed nothing. A site may be active and due or
// waiting at once. It is a project's frontier on its board (stats.json's
// "sites") as well as in /metrics and the admin panel.
type Summary struct {
	Sites   int64 `json:"sites"`
	Active  int64 `json:"active"`
	Due     int64 `json:"due"`
	Waiting int64 `json:"waiting"`
	Blocked int64 `json:"blocked"`
	// Waited counts the item requests refused (429 sites-waiting) because
	// every site with items queued waited on politeness.
	Waited int64 `json:"requests_waited"`
	// Top are the TopShown sites with the most completions, most first.
	Top []TopSite `json:"top"`
	// At is when these figures were read.
	At time.Time `json:"at"`
}

// TopShown is how many sites a Summary's Top lists.
const TopShown = 10

// TopSite is one of the sites with the most completions.
type TopSite struct {
	Name string `json:"site"`
	// Done counts its completions, Bytes their bytes.
	Done   int64 `json:"items"`
	Bytes  int64 `json:"bytes"`
	Queued int64 `json:"queued"`
	Out    int64 `json:"out"`
}

// RequestsWaitedCounter is the project counter of the requests that got
// nothing while every site with items queued waited on politeness.
const RequestsWaitedCounter = "requests_sites_waited"

// SummaryOf reads the project's summary through q. It reads every site row
// of the project: callers that serve many readers keep it a while (see
// Store.Summary).
func SummaryOf(ctx context.Context, q *db.Queries, projectID int32) (Summary, error) {
	at := time.Now()
	r, err := q.SitesSummary(ctx, projectID)
	if err != nil {
		return Summary{}, err
	}
	waited, err := q.CounterGet(ctx, db.CounterGetParams{ProjectID: projectID, Name: RequestsWaitedCounter})
	if err != nil {
		return Summary{}, err
	}
	rows, err := q.SitesTop(ctx, db.SitesTopParams{ProjectID: projectID, Max: TopShown})
	if err != nil {
		return Summary{}, err
	}
	top := make([]TopSite, len(rows))
	for i, r := range rows {
		top[i] = TopSite{Name: r.Name, Done: r.Done, Bytes: r.Bytes, Queued: r.Queued, Out: int64(r.Out)}
	}
	return Summary{Sites: r.Sites, Active: r.Active, Due: r.Due, Waiting: r.Waiting, Blocked: r.Blocked, Waited: waited,
		Top: top, At: at}, nil
}

// State is one site as the frontier holds it.
type State struct {
	ID   int32
	Name string
	// Queued items (in the queues served) and items out.
	Queued, Out int64
	// AtLimit: the site holds as many items out as the project allows.
	AtLimit bool
	// DueAt is when the site may be handed out next; LastAt when it last
	// was (zero: never).
	DueAt, LastAt time.Time
	// Downloader holds the site's items out ("" when none is out).
	Downloader string
	// Blocked: its items stay queued and are not handed out.
	Blocked bool
	// Completions and their bytes.
	Done, Bytes int64
}

// Waiting says whether the site has items queued that wait on politeness
// at now (its interval or its limit), as SitesSummary counts them.
func (s State) Waiting(now time.Time) bool {
	return s.Queued > 0 && !s.Blocked && (s.AtLimit || s.DueAt.After(now))
}

// Due says whether the site has items queued that may be handed out at now.
func (s State) Due(now time.Time) bool {
	return s.Queued > 0 && !s.Blocked && !s.AtLimit && !s.DueAt.After(now)
}

// maxNameLen is the longest host name (RFC 1035), an IPv6 address being
// shorter.
const maxNameLen = 253

// Name is a site's name as the frontier keeps it: trimmed, lower case,
// without a trailing dot, and a host name in A-labels (see Host), so that
// bücher.de finds xn--bcher-kva.de.
func Name(name string) (string, error) {
	name = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(name)), ".")
	if name == "" {
		return "", ErrNoName
	}
	if key, _ := Host(name); key != "" {
		name = key
	}
	if len(name) > maxNameLen {
		return "", ErrNotFound
	}
	return name, nil
}

// Get reads the project's site named name (ErrNoName, ErrNotFound).
func Get(ctx context.Context, q *db.Queries, projectID int32, name string) (State, error) {
	name, err := Name(name)
	if err != nil {
		return State{}, err
	}
	r, err := q.SiteGet(ctx, db.SiteGetParams{ProjectID: projectID, Name: name})
	if errors.Is(err, pgx.ErrNoRows) {
		return State{}, ErrNotFound
	}
	if err != nil {
		return State{}, err
	}
	// The two queries read the same columns.
	return stateOf(db.SitesPageRow(r)), nil
}

// stateOf is a site as SitesPage and SiteGet read it.
func stateOf(r db.SitesPageRow) State {
	s := State{ID: r.ID, Name: r.Name, Queued: r.Queued, Out: int64(r.Out), AtLimit: r.AtLimit, DueAt: r.DueAt,
		Downloader: r.Downloader, Blocked: r.Blocked, Done: r.Done, Bytes: r.Bytes}
	if r.LastAt != nil {
		s.LastAt = *r.LastAt
	}
	return s
}

// Filter picks a page of a project's sites, in name order.
type Filter struct {
	// Prefix: the sites whose name starts with it.
	Prefix string
	// After continues a page: the sites named after it.
	After string
	// Busy: only the sites with items queued or out.
	Busy bool
	Max  int
}

// Page reads a page of the project's sites. Names are compared byte by
// byte, as the embedded cluster's collation (C) orders them: a prefix's
// sites are one run of the order.
func Page(ctx context.Context, q *db.Queries, projectID int32, f Filter) ([]State, error) {
	if f.Max <= 0 {
		return nil, nil
	}
	prefix := strings.ToLower(strings.TrimSpace(f.Prefix))
	var out []State
	after := f.After
	if prefix != "" && after < prefix {
		// Sites named after the prefix, and the one named the prefix.
		after = prefix
		s, err := Get(ctx, q, projectID, prefix)
		switch {
		case err == nil:
			if !f.Busy || s.Queued > 0 || s.Out > 0 {
				out = append(out, s)
			}
		case !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrNoName):
			return nil, err
		}
	}
	rows, err := q.SitesPage(ctx, db.SitesPageParams{ProjectID: projectID, After: after, Busy: f.Busy, Max: int32(f.Max - len(out))})
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		if !strings.HasPrefix(r.Name, prefix) {
			break
		}
		out = append(out, stateOf(r))
	}
	return out, nil
}

// SetBlocked blocks the project's site named name (its items stay queued
// and are not handed out) or lifts its block, through q, and records it in
// the audit log: call it in a transaction. It returns the site as it was.
func SetBlocked(ctx context.Context, q *db.Queries, projectID int32, name string, blocked bool) (State, error) {
	s, err := Get(ctx, q, projectID, name)
	if err != nil {
		return s, err
	}
	n, err := q.SiteSetBlocked(ctx, db.SiteSetBlockedParams{Blocked: blocked, ProjectID: projectID, ID: s.ID})
	if err != nil {
		return s, err
	}
	if n == 0 {
		return s, ErrNotFound
	}
	action := "site.unblock"
	if blocked {
		action = "site.block"
	}
	return s, audit.Record(ctx, q, action, projectID, map[string]any{"site": s.Name})
}

// Store reads and steers the sites of a database's projects.
type Store struct {
	pool *pgxpool.Pool
	q    *db.Queries

	mu        sync.Mutex
	summaries map[int32]Summary
	reads     singleflight.Group
}

func NewStore(pool *pgxpool.Pool) *Store {
	return &Store{pool: pool, q: db.Of(pool), summaries: map[int32]Summary{}}
}

// Summary is the project's summary, read again only when the one the store
// holds is older than maxAge (0: read now). Readers asking at once share
// one read.
func (s *Store) Summary(ctx context.Context, projectID int32, maxAge time.Duration) (Summary, error) {
	s.mu.Lock()
	held, ok := s.summaries[projectID]
	s.mu.Unlock()
	if ok && maxAge > 0 && time.Since(held.At) < maxAge {
		return held, nil
	}
	v, err, _ := s.reads.Do(strconv.Itoa(int(projectID)), func() (any, error) {
		sum, err := SummaryOf(ctx, s.q, projectID)
		if err != nil {
			return Summary{}, err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(s.summaries) > maxSummariesHeld {
			clear(s.summaries)
		}
		s.summaries[projectID] = sum
		return sum, nil
	})
	if err != nil {
		return Summary{}, err
	}
	return v.(Summary), nil
}

// maxSummariesHeld bounds the summaries a store keeps.
const maxSummariesHeld = 10_000

// Get reads the project's site named name (ErrNoName, ErrNotFound).
func (s *Store) Get(ctx context.Context, projectID int32, name string) (State, error) {
	return Get(ctx, s.q, projectID, name)
}

// Page reads a page of the project's sites.
func (s *Store) Page(ctx context.Context, projectID int32, f Filter) ([]State, error) {
	return Page(ctx, s.q, projectID, f)
}

// SetBlocked blocks the project's site named name or lifts its block, and
// records it, in one transaction.
func (s *Store) SetBlocked(ctx context.Context, projectID int32, name string, blocked bool) (State, error) {
	var st State
	err := db.WithTx(ctx, s.pool, func(q *db.Queries) error {
		var err error
		st, err = SetBlocked(ctx, q, projectID, name, blocked)
		return err
	})
	return st, err
}
