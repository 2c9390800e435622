package sites

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/singleflight"

	"tracker/audit"
	"tracker/db"
)

// The state of a project's frontier, for people: how many sites are
// served, wait or are blocked, the busiest, one site's state; and what an
// admin does to a site (block it, release it). The engine (package items)
// keeps the state; this reads and steers it.

// ErrNotFound is a site the project has no row for.
var ErrNotFound = errors.New("no such site")

// ErrNoName is a site asked for with no name.
var ErrNoName = errors.New("name a site (its host or registrable domain)")

// Summary counts a project's sites by state. Active sites have items out;
// due ones have items queued and may be handed out now; waiting ones have
// items queued and wait on their interval or their limit of items out;
// blocked ones are handed nothing. A site may be active and due or
// waiting at once.
type Summary struct {
	Sites, Active, Due, Waiting, Blocked int64
	// Waited counts the item requests refused (429 sites-waiting) because
	// every site with items queued waited on politeness.
	Waited int64
}

// RequestsWaitedCounter is the project counter of the requests that got
// nothing while every site with items queued waited on politeness.
const RequestsWaitedCounter = "requests_sites_waited"

// SummaryOf reads the project's summary through q. It reads every site row
// of the project: callers that serve many readers keep it a while (see
// Store.Summary).
func SummaryOf(ctx context.Context, q *db.Queries, projectID int32) (Summary, error) {
	r, err := q.SitesSummary(ctx, projectID)
	if err != nil {
		return Summary{}, err
	}
	waited, err := q.CounterGet(ctx, db.CounterGetParams{ProjectID: projectID, Name: RequestsWaitedCounter})
	if err != nil {
		return Summary{}, err
	}
	return Summary{Sites: r.Sites, Active: r.Active, Due: r.Due, Waiting: r.Waiting, Blocked: r.Blocked, Waited: waited}, nil
}

// TopSite is one of the sites with the most completions.
type TopSite struct {
	Name                     string
	Queued, Out, Done, Bytes int64
}

// Top reads the n sites of the project with the most completions, most
// first.
func Top(ctx context.Context, q *db.Queries, projectID int32, n int) ([]TopSite, error) {
	rows, err := q.SitesTop(ctx, db.SitesTopParams{ProjectID: projectID, Max: int32(max(n, 0))})
	if err != nil {
		return nil, err
	}
	out := make([]TopSite, len(rows))
	for i, r := range rows {
		out[i] = TopSite{Name: r.Name, Queued: r.Queued, Out: int64(r.Out), Done: r.Done, Bytes: r.Bytes}
	}
	return out, nil
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
	summaries map[int32]summaryRead
	reads     singleflight.Group
}

// summaryRead is a summary and when it was read.
type summaryRead struct {
	at      time.Time
	summary Summary
}

func NewStore(pool *pgxpool.Pool) *Store {
	return &Store{pool: pool, q: db.New(pool), summaries: map[int32]summaryRead{}}
}

// Summary is the project's summary, read again only when the one the store
// holds is older than maxAge (0: read now). Readers asking at once share
// one read.
func (s *Store) Summary(ctx context.Context, projectID int32, maxAge time.Duration) (Summary, error) {
	s.mu.Lock()
	held, ok := s.summaries[projectID]
	s.mu.Unlock()
	if ok && maxAge > 0 && time.Since(held.at) < maxAge {
		return held.summary, nil
	}
	v, err, _ := s.reads.Do(strconv.Itoa(int(projectID)), func() (any, error) {
		at := time.Now()
		sum, err := SummaryOf(ctx, s.q, projectID)
		if err != nil {
			return Summary{}, err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(s.summaries) > maxSummariesHeld {
			clear(s.summaries)
		}
		s.summaries[projectID] = summaryRead{at: at, summary: sum}
		return sum, nil
	})
	if err != nil {
		return Summary{}, err
	}
	return v.(Summary), nil
}

// maxSummariesHeld bounds the summaries a store keeps.
const maxSummariesHeld = 10_000

// Top reads the n sites of the project with the most completions.
func (s *Store) Top(ctx context.Context, projectID int32, n int) ([]TopSite, error) {
	return Top(ctx, s.q, projectID, n)
}

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

// releaseBatch bounds one statement of Release.
const releaseBatch = 5000

// Release gives every claim of the project's site named name back to the
// queue it came from, in its old place (their holders may still report
// them done), in batches that each commit on their own, and then lets the
// site be handed out again at once: its interval and its limit start
// afresh. The audit log's entry counts the claims released. It returns
// how many.
func (s *Store) Release(ctx context.Context, projectID int32, name string) (int64, error) {
	st, err := s.Get(ctx, projectID, name)
	if err != nil {
		return 0, err
	}
	tally, err := audit.Begin(ctx, s.q, "site.release", projectID, map[string]any{"site": st.Name}, "released")
	if err != nil {
		return 0, err
	}
	var total int64
	for {
		n, err := tally.Batch(ctx, s.pool, func(q *db.Queries) (int64, error) {
			if err := q.ProjectStretchesShare(ctx, projectID); err != nil {
				return 0, err
			}
			return q.ClaimsReleaseWhere(ctx, db.ClaimsReleaseWhereParams{
				ProjectID: projectID, Site: st.ID, Max: releaseBatch,
				OlderThan: pgtype.Interval{Valid: true},
			})
		})
		total += n
		if err != nil {
			return total, err
		}
		if n < releaseBatch {
			break
		}
	}
	return total, s.q.SiteMakeDue(ctx, db.SiteMakeDueParams{ProjectID: projectID, ID: st.ID})
}
