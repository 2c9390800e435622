package handlers_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
	"tracker/db/dbtest"
	"tracker/handlers"
	"tracker/users"
)

// adminOn starts another server on f's database whose warriors have a web
// pool of web connections and whose admin panel reads through a pool of
// its own of l.Conns connections, with limits; each pool's statements are
// cut off after timeout (0: never). It returns the server with its
// handlers and web pool.
func (f fixture) adminOn(t *testing.T, web int, timeout time.Duration, l handlers.AdminLimits) (fixture, *handlers.Handler, *pgxpool.Pool) {
	t.Helper()
	open := func(n int) *pgxpool.Pool {
		opts := []db.Option{db.MaxConns(int32(n))}
		if timeout > 0 {
			opts = append(opts, db.StatementTimeout(timeout))
		}
		pool, err := db.Open(context.Background(), f.pool.Config().ConnString(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		return pool
	}
	webPool, adminPool := open(web), open(l.Conns)
	h := newHandler(slog.New(slog.NewTextHandler(io.Discard, nil)), webPool, func(c *handlers.Config) { c.AdminPool, c.Admin = adminPool, l })
	srv := httptest.NewServer(h.Routes())
	t.Cleanup(h.Close)
	t.Cleanup(srv.Close) // first: the server drains before its handlers stop
	f.srv = srv
	return f, h, webPool
}

// lockTable holds table locked from another connection, as a search
// reading long holds its connection, until the returned function (or the
// test's end) lets it go.
func (f fixture) lockTable(t *testing.T, table string) func() {
	t.Helper()
	ctx := context.Background()
	tx, err := f.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE "+table+" IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	unlock := func() { tx.Rollback(ctx) }
	t.Cleanup(unlock)
	return unlock
}

// lockWaiters counts the statements of f's database waiting for a lock.
func (f fixture) lockWaiters(t *testing.T) int {
	t.Helper()
	var n int
	if err := f.pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// tryGet is get for a test's goroutines: it returns failures.
func (c *adminClient) tryGet(path string) (answer, error) {
	resp, err := c.client.Get(c.f.srv.URL + path)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, err = b.ReadFrom(resp.Body)
	return answer{status: resp.StatusCode, reason: resp.Header.Get("X-Tracker-Reason"), body: b.String(), header: resp.Header}, err
}

// doneSearch is a search of the queue browser through the completed
// items, by regular expression.
const doneSearch = "/admin/projects/test/browse?source=done&contains=post&regex=1"

// Admins' searches read through a pool of their own. With more of them
// held up at once than the web pool has connections (each reading the
// completed items while a lock keeps it waiting, as a costly search holds
// its connection), a warrior still gets its item, instead of waiting for a
// connection and being told the database is away; the searches past the
// admin pool's connections wait their turn, and once the lock goes every
// search is answered and the warrior's done is taken.
func TestAdminSearchesLeaveWarriorsTheirConnections(t *testing.T) {
	t.Parallel()
	f := setup(t, "item:1")
	f.user(t, "root", users.RoleAdmin)
	s, _, _ := f.adminOn(t, 2, 0, handlers.AdminLimits{Conns: 2, Bulk: 1, Waiting: 10, Wait: time.Hour})
	c := s.signedIn(t, "root")
	unlock := f.lockTable(t, "done")

	answers := make(chan answer, 4)
	for range 4 {
		go func() {
			a, err := c.tryGet(doneSearch)
			if err != nil {
				a = answer{status: -1, body: err.Error()}
			}
			answers <- a
		}()
	}
	dbtest.Eventually(t, func() bool { return f.lockWaiters(t) == 2 }, "two searches held up")
	names, a := s.request(t, "alice", 1)
	if len(names) != 1 || names[0] != "item:1" {
		t.Fatalf("a warrior beside the searches got %v: %d %s %s", names, a.status, a.reason, a.body)
	}
	unlock()
	for range 4 {
		if a := <-answers; a.status != http.StatusOK {
			t.Fatalf("a search once the lock went: %d %s %s", a.status, a.reason, a.body)
		}
	}
	s.done(t, "alice", names...)
}

// A page of the panel that finds no turn in time, and a bulk change the
// same, are refused with their reason and when to come back, not told the
// database is away; once turns come free they run.
func TestAdminBusyIsSaid(t *testing.T) {
	t.Parallel()
	f := setup(t, "post:1")
	f.user(t, "root", users.RoleAdmin)
	s, h, _ := f.adminOn(t, 4, 0, handlers.AdminLimits{Conns: 1, Bulk: 1, Waiting: 0, Wait: time.Hour})
	c := s.signedIn(t, "root")
	move := url.Values{"from": {"todo"}, "to": {"redo"}, "confirmed": {"1"}}

	give := h.TakeAdminSlots()
	for _, path := range []string{doneSearch, "/admin/", "/admin/projects/test/queues"} {
		if a := c.get(t, path); a.status != http.StatusServiceUnavailable || a.reason != "admin-busy" || a.header.Get("Retry-After") == "" {
			t.Errorf("GET %s with the admin pages' turns taken: %d %q, Retry-After %q", path, a.status, a.reason, a.header.Get("Retry-After"))
		}
	}
	// Changes do not wait for the pages' turns.
	if a := c.post(t, "/admin/projects/test/queues/move", move); a.status != http.StatusSeeOther {
		t.Fatalf("a move beside busy pages: %d %s", a.status, a.reason)
	}
	give()
	if a := c.get(t, doneSearch); a.status != http.StatusOK {
		t.Fatalf("a search with a turn free: %d %s", a.status, a.reason)
	}

	give = h.TakeBulkSlots()
	back := url.Values{"from": {"redo"}, "to": {"todo"}, "confirmed": {"1"}}
	if a := c.post(t, "/admin/projects/test/queues/move", back); a.status != http.StatusServiceUnavailable || a.reason != "admin-busy" ||
		a.header.Get("Retry-After") == "" {
		t.Fatalf("a bulk change with the bulk turns taken: %d %q", a.status, a.reason)
	}
	if s := f.summary(t); s.Queues["redo"] != 1 {
		t.Fatalf("a refused move moved: %v", s.Queues)
	}
	give()
	if a := c.post(t, "/admin/projects/test/queues/move", back); a.status != http.StatusSeeOther {
		t.Fatalf("a move with a turn free: %d %s", a.status, a.reason)
	}
}

// A search, or a bulk change's count, that the admin pool's statement
// timeout stops is the admin's to narrow: 400 search-too-costly, shown on
// the page with the form, not a 503 saying the database is slow or away.
func TestAdminSearchPastItsTimeout(t *testing.T) {
	t.Parallel()
	f := setup(t, "post:1")
	f.user(t, "root", users.RoleAdmin)
	s, _, _ := f.adminOn(t, 4, 100*time.Millisecond, handlers.AdminLimits{Conns: 1, Bulk: 1, Waiting: 10, Wait: time.Hour})
	c := s.signedIn(t, "root")
	f.lockTable(t, "done")

	a := c.get(t, doneSearch)
	if a.status != http.StatusBadRequest || a.reason != "search-too-costly" || !strings.Contains(a.body, "narrow it") ||
		!strings.Contains(a.body, `data-testid="browse-filter"`) {
		t.Fatalf("a search past the timeout: %d %q %s", a.status, a.reason, a.body)
	}
	a = c.post(t, "/admin/projects/test/done/requeue", url.Values{"queue": {"redo"}, "pattern": {"^post:"}})
	if a.status != http.StatusBadRequest || !strings.Contains(a.body, "narrow it") {
		t.Fatalf("a count past the timeout: %d %q %s", a.status, a.reason, a.body)
	}
}

// A request that waits for one of the web pool's connections until its
// time runs out is told the connections are busy, not that the database
// is away: it answers.
func TestBusyPoolIsNotDatabaseUnavailable(t *testing.T) {
	t.Parallel()
	f := setup(t)
	s, _, web := f.adminOn(t, 1, 0, handlers.DefaultAdminLimits)
	conn, err := web.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	a := s.do(t, "GET", "/healthz", "")
	if a.status != http.StatusServiceUnavailable || a.reason != "connections-busy" || a.header.Get("Retry-After") == "" {
		t.Fatalf("/healthz with every connection of the web pool in use: %d %q %s", a.status, a.reason, a.body)
	}
	conn.Release()
	if a := s.do(t, "GET", "/healthz", ""); a.status != http.StatusOK {
		t.Fatalf("/healthz with a connection free: %d %s", a.status, a.reason)
	}
}
