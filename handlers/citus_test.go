package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"tracker/books"
	"tracker/db"
	"tracker/db/dbtest"
	"tracker/items"
	"tracker/projects"
	"tracker/stats"
)

// A Citus worker lost (killed as by a crash) makes the requests that need
// it answer 503 with a Retry-After, as a database away does, never 500;
// once it is back, the same requests are served again, and the books
// balance. A project on the other worker keeps its pages, but its claims
// and completions need every worker (see "Losing a worker" in
// docs/OPERATIONS.md).
func TestCitusWorkerLoss(t *testing.T) {
	c, dsn := dbtest.NewCitus(t)
	ctx := context.Background()
	pool, err := db.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	p := dbtest.Project(t, pool, "test", "Test project")
	if _, err := items.NewEngine(pool, log).Add(ctx, p, "todo", strings.NewReader("a\nb\nc\nd")); err != nil {
		t.Fatal(err)
	}
	h := newHandler(log, pool)
	srv := httptest.NewServer(h.Routes())
	t.Cleanup(h.Close)
	t.Cleanup(srv.Close)
	f := fixture{srv: srv, pool: pool, store: projects.NewStore(pool), project: p}

	got, _ := f.request(t, "alice", 1)
	if len(got) != 1 {
		t.Fatalf("before: got %v", got)
	}
	// The worker holding a project's queue.
	workerOf := func(p projects.Project) int {
		var node string
		dbtest.MustScan(t, pool.QueryRow(ctx, `SELECT nodename FROM citus_shards
			WHERE table_name = 'todo'::regclass AND shardid = get_shard_id_for_distribution_column('todo', $1::integer)`, p.ID), &node)
		for i, w := range c.Workers {
			if w.Dir() == node {
				return i
			}
		}
		t.Fatalf("the worker %s of %s is none of the cluster's", node, p.Slug)
		return -1
	}
	worker := workerOf(p)
	// A project whose queue is on the other worker.
	var elsewhere projects.Project
	for i := 0; elsewhere.ID == 0; i++ {
		if i == 20 {
			t.Fatal("20 projects, all on the same worker")
		}
		q := dbtest.Project(t, pool, fmt.Sprintf("other%d", i), "")
		if workerOf(q) != worker {
			elsewhere = q
		}
	}
	if _, err := items.NewEngine(pool, log).Add(ctx, elsewhere, "todo", strings.NewReader("x\ny\nz")); err != nil {
		t.Fatal(err)
	}
	a, err := f.send("POST", "/"+elsewhere.Slug+"/request", "application/json", `{"downloader":"carol","api_version":"2"}`)
	if err != nil || a.status != 200 || !strings.Contains(a.body, `"item_name":"x"`) {
		t.Fatalf("a request of %s: %d %q %v", elsewhere.Slug, a.status, a.body, err)
	}
	c.Kill(t, worker)

	// The project on the worker still up: its pages are served (its rows
	// are there, the reference tables' on the coordinator).
	for _, path := range []string{"/" + elsewhere.Slug + "/", "/" + elsewhere.Slug + "/stats.json"} {
		if a, err := f.send("GET", path, "", ""); err != nil || a.status != 200 {
			t.Errorf("GET %s with the other worker down: %d %q %v, want 200", path, a.status, a.body, err)
		}
	}

	for _, r := range []struct{ what, path, contentType, body string }{
		{"request", "/test/request", "application/json", `{"downloader":"bob","api_version":"2"}`},
		{"done", "/test/done", "application/json", `{"downloader":"alice","item":"` + got[0] + `","bytes":{"data":1}}`},
		// seen is on every worker: a backfeed post needs both.
		{"backfeed", "/backfeed/legacy/test-" + p.Config.BackfeedKey, "application/x-www-form-urlencoded", "e\x00f\x00"},
		// Its claims and completions too: Citus runs a statement with an
		// INSERT among its parts a part at a time, and sends the rows of
		// the parts an INSERT reads to every worker.
		{"request of a project on the worker still up", "/" + elsewhere.Slug + "/request", "application/json", `{"downloader":"dave","api_version":"2"}`},
		{"done of a project on the worker still up", "/" + elsewhere.Slug + "/done", "application/json", `{"downloader":"carol","item":"x","bytes":{"data":1}}`},
	} {
		a, err := f.send("POST", r.path, r.contentType, r.body)
		if err != nil {
			t.Fatal(err)
		}
		if a.status != 503 || a.header.Get("Retry-After") == "" || a.reason != "database-unavailable" {
			t.Errorf("%s with the project's worker down: %d %q (Retry-After %q) %q, want 503 database-unavailable with a Retry-After",
				r.what, a.status, a.reason, a.header.Get("Retry-After"), a.body)
		}
	}

	c.Restart(t, worker)
	dbtest.Eventually(t, func() bool {
		names, a, err := f.tryRequest("bob", 1)
		if err != nil {
			t.Fatal(err)
		}
		if a.status != 200 && a.status != 503 {
			t.Fatalf("while the worker comes back: %d %q", a.status, a.body)
		}
		return len(names) == 1
	}, "a claim once the worker is back")
	f.done(t, "alice", got[0])
	for _, r := range []struct{ path, body, want string }{
		{"/" + elsewhere.Slug + "/request", `{"downloader":"dave","api_version":"2"}`, `"item_name":"y"`},
		{"/" + elsewhere.Slug + "/done", `{"downloader":"carol","item":"x","bytes":{"data":1}}`, "OK"},
	} {
		if a, err := f.send("POST", r.path, "application/json", r.body); err != nil || a.status != 200 || !strings.Contains(a.body, r.want) {
			t.Errorf("POST %s once the worker is back: %d %q %v", r.path, a.status, a.body, err)
		}
	}
	for _, p := range []projects.Project{p, elsewhere} {
		if r, err := books.Of(ctx, pool, p); err != nil || !r.Balanced {
			t.Errorf("%s's books: %+v, %v", p.Slug, r, err)
		}
	}
}

// On Citus the rollup folds project by project, each on its project's
// worker: the boards read the tallies pending before the fold and the
// downloaders' totals after it, the same counts either way.
func TestCitusFold(t *testing.T) {
	_, dsn := dbtest.NewCitus(t)
	ctx := context.Background()
	pool, err := db.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	h := newHandler(log, pool)
	srv := httptest.NewServer(h.Routes())
	t.Cleanup(h.Close)
	t.Cleanup(srv.Close)
	q := db.Of(pool)
	// Projects enough that some land on each worker.
	var ps []projects.Project
	for i := range 6 {
		p := dbtest.Project(t, pool, fmt.Sprintf("p%d", i), "")
		if _, err := items.NewEngine(pool, log).Add(ctx, p, "todo", strings.NewReader("a\nb")); err != nil {
			t.Fatal(err)
		}
		f := fixture{srv: srv, pool: pool, store: projects.NewStore(pool), project: p}
		for _, nick := range []string{"alice", "bob"} {
			a := f.do(t, "POST", "/"+p.Slug+"/request", `{"downloader":"`+nick+`","api_version":"2"}`)
			var claim struct {
				Item string `json:"item_name"`
			}
			if err := json.Unmarshal([]byte(a.body), &claim); err != nil || claim.Item == "" {
				t.Fatalf("%s's request in %s: %d %q", nick, p.Slug, a.status, a.body)
			}
			if a := f.do(t, "POST", "/"+p.Slug+"/done", `{"downloader":"`+nick+`","item":"`+claim.Item+`","bytes":{"data":100}}`); a.body != "OK" {
				t.Fatalf("%s's done in %s: %d %q", nick, p.Slug, a.status, a.body)
			}
		}
		pending, err := q.DoneTalliesPending(ctx, p.ID)
		if err != nil || len(pending) != 2 {
			t.Fatalf("%s's pending tallies before the fold: %v %v, want alice's and bob's", p.Slug, pending, err)
		}
		ps = append(ps, p)
	}

	n, err := stats.NewStore(pool).Fold(ctx)
	if err != nil || n != 12 {
		t.Fatalf("fold: %d %v, want the 12 tallies", n, err)
	}
	for _, p := range ps {
		if pending, err := q.DoneTalliesPending(ctx, p.ID); err != nil || len(pending) != 0 {
			t.Errorf("%s's pending tallies after the fold: %v %v, want none", p.Slug, pending, err)
		}
		if got := dbtest.Count(t, pool, "SELECT count(*) FROM downloaders WHERE project_id = $1 AND items = 1 AND bytes = 100", p.ID); got != 2 {
			t.Errorf("%s: %d downloaders with their item and bytes, want alice and bob", p.Slug, got)
		}
	}
}
