package handlers_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db/dbtest"
	"tracker/handlers"
)

// readersOn starts another server on f's database whose read routes have a
// pool of their own of one connection, with limits, and returns it with its
// handlers and that pool.
func (f fixture) readersOn(t *testing.T, l handlers.ReaderLimits) (fixture, *handlers.Handler, *pgxpool.Pool) {
	t.Helper()
	return f.readersWith(t, l, nil)
}

// readersWith is readersOn, configure (when not nil) setting the handlers
// up further before the server starts.
func (f fixture) readersWith(t *testing.T, l handlers.ReaderLimits, configure func(*handlers.Handler)) (fixture, *handlers.Handler, *pgxpool.Pool) {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(f.pool.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 1
	readers, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(readers.Close)
	var h *handlers.Handler
	s := f.serve(t, io.Discard, func(hh *handlers.Handler, _ *http.Server) {
		if configure != nil {
			configure(hh)
		}
		h = hh
	}, func(c *handlers.Config) { c.ReaderPool, c.Readers = readers, l })
	return s, h, readers
}

// readRoutes are the public read routes of project "test", and the
// tracker's.
var readRoutes = []string{"/test/items/item:1.json", "/test/", "/test/stats.json", "/test/charts.json", "/projects.json", "/",
	"/test/downloader/alice.json", "/downloader/alice.json", "/stats.json", "/positions.json", "/downloads/"}

// With every slot of the read routes taken and the readers' one connection
// held, as a flood of readers would hold them, a warrior still gets and
// completes its item: the warrior routes never wait on the readers' side.
// Readers are refused at once (no room to wait), with the reason and when
// to come back.
func TestReaderFloodLeavesWarriorsTheirConnections(t *testing.T) {
	t.Parallel()
	f := setup(t, "item:1", "item:2")
	s, h, readers := f.readersOn(t, handlers.ReaderLimits{Slots: 1, Waiting: 0, Wait: time.Minute})
	conn, err := readers.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Given back on failure too: the pool's closing waits for it.
	release := sync.OnceFunc(conn.Release)
	t.Cleanup(release)
	give := h.TakeReaderSlots()

	for _, path := range readRoutes {
		a := s.do(t, "GET", path, "")
		if a.status != http.StatusServiceUnavailable || a.reason != "readers-busy" || a.header.Get("Retry-After") != "1" {
			t.Fatalf("GET %s with the readers' slots taken: %d %q, Retry-After %q", path, a.status, a.reason, a.header.Get("Retry-After"))
		}
	}
	names, a := s.request(t, "alice", 1)
	if len(names) != 1 || names[0] != "item:1" {
		t.Fatalf("a warrior beside the flood got %v (%d %s)", names, a.status, a.reason)
	}
	s.done(t, "alice", names...)

	// The flood over, the read routes answer, from the readers' pool.
	give()
	release()
	a = s.do(t, "GET", "/test/items/item:1.json", "")
	var st struct{ Status string }
	if a.status != 200 || json.Unmarshal([]byte(a.body), &st) != nil || st.Status != "done" {
		t.Fatalf("item:1 after the flood: %d %s", a.status, a.body)
	}
	if got := readers.Stat().AcquireCount(); got < 2 {
		t.Fatalf("the readers' pool gave %d connections: the read did not go through it", got)
	}
}

// A read that finds every slot taken waits its turn, in a queue of bounded
// length: one past the bound is refused at once, and the one waiting is
// answered when a slot comes free.
func TestReadersWaitTheirTurnInABoundedQueue(t *testing.T) {
	t.Parallel()
	f := setup(t, "item:1")
	s, h, _ := f.readersOn(t, handlers.ReaderLimits{Slots: 1, Waiting: 1, Wait: time.Hour})
	give := h.TakeReaderSlots()

	waited := make(chan answer, 1)
	go func() {
		a, err := s.send("GET", "/test/items/item:1.json", "", "")
		if err != nil {
			a = answer{status: -1, body: err.Error()}
		}
		waited <- a
	}()
	dbtest.Eventually(t, func() bool { return h.ReadersWaiting() == 1 }, "a read waiting for a slot")
	if a := s.do(t, "GET", "/test/stats.json", ""); a.status != http.StatusServiceUnavailable || a.reason != "readers-busy" || a.header.Get("Retry-After") == "" {
		t.Fatalf("a read past the queue: %d %q, Retry-After %q", a.status, a.reason, a.header.Get("Retry-After"))
	}
	give()
	a := <-waited
	var st struct{ Status string }
	if a.status != 200 || json.Unmarshal([]byte(a.body), &st) != nil || st.Status != "todo" {
		t.Fatalf("the read that waited: %d %s", a.status, a.body)
	}
}

// A read waits for a slot no longer than the readers' wait: then it is
// refused, and can come back.
func TestReaderWaitIsBounded(t *testing.T) {
	t.Parallel()
	f := setup(t, "item:1")
	s, h, _ := f.readersOn(t, handlers.ReaderLimits{Slots: 1, Waiting: 10, Wait: time.Millisecond})
	give := h.TakeReaderSlots()
	if a := s.do(t, "GET", "/test/items/item:1.json", ""); a.status != http.StatusServiceUnavailable || a.reason != "readers-busy" || a.header.Get("Retry-After") != "1" {
		t.Fatalf("a read that found no slot in time: %d %q, Retry-After %q", a.status, a.reason, a.header.Get("Retry-After"))
	}
	give()
	if a := s.do(t, "GET", "/test/items/item:1.json", ""); a.status != 200 {
		t.Fatalf("the read again, a slot free: %d %s", a.status, a.body)
	}
}
