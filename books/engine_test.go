package books

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"tracker/db/dbtest"
	"tracker/items"
	"tracker/naming"
	"tracker/projects"
)

// newProject is a world of one project, slug "p", with the given settings.
func newProject(t *testing.T, assignments ...string) *world {
	t.Helper()
	w := &world{pool: dbtest.New(t), projects: map[string]*projects.Project{}, archiveTo: t.TempDir()}
	w.store = projects.NewStore(w.pool)
	w.engine = items.NewEngine(w.pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	p := dbtest.Project(t, w.pool, "p", "", assignments...)
	w.projects["p"] = &p
	return w
}

// balanced fails the test unless the books of project p, and the
// tracker's, balance.
func (w *world) balanced(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	if p, ok := w.projects["p"]; ok && !p.Config.Deleting {
		if r, err := Of(ctx, w.pool, *p); err != nil || !r.Balanced {
			t.Errorf("the books of p do not balance (%v): %q", err, failing(r))
		}
	}
	if r, err := Tracker(ctx, w.pool); err != nil || !r.Balanced {
		t.Errorf("the tracker's books do not balance (%v): %q", err, failing(r))
	}
}

// The engine's own moves that leave the books unbalanced. Each test ends
// with the books that should balance; each is skipped, naming what the
// engine does wrong, until the engine does it right.

// TestBooksAfterPurge: a purged recurring project leaves nothing behind.
func TestBooksAfterPurge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newProject(t, "mode=recurring")
	w.add(t, "p", "t:1", "t:2")
	w.complete(t, "p", items.Completion{Downloader: "alice", Items: w.request(t, "p", "alice", 2)})
	if err := w.store.MarkDeleting(ctx, *w.projects["p"]); err != nil {
		t.Fatal(err)
	}
	w.projects["p"].Config.Deleting = true
	w.purge(t)
	w.balanced(t)
}

// TestBooksAfterSitesOff: an item out when its project stops keeping
// sites comes back to be handed out like any other.
func TestBooksAfterSitesOff(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newProject(t, "site_key=host")
	w.add(t, "p", "https://a.example/1")
	out := w.request(t, "p", "alice", 1)
	w.set(t, "p", "site_key=off")
	if _, err := w.engine.Release(ctx, *w.projects["p"], out, ""); err != nil {
		t.Fatal(err)
	}
	w.balanced(t)
	if got := w.request(t, "p", "bob", 1); !slices.Equal(got, out) {
		t.Errorf("bob got %v, want %v", got, out)
	}
}

// TestBooksAfterModeOnce: a recurring project made a project done once
// keeps no items waiting for a visit that never comes: the revisit job
// queues them at once, to be done once more.
func TestBooksAfterModeOnce(t *testing.T) {
	t.Parallel()
	w := newProject(t, "mode=recurring")
	w.add(t, "p", "t:1")
	w.complete(t, "p", items.Completion{Downloader: "alice", Items: w.request(t, "p", "alice", 1)})
	w.set(t, "p", "mode=once")
	w.balanced(t)
	if n, err := w.engine.RevisitDue(context.Background(), *w.projects["p"], 100); err != nil || n != 1 {
		t.Fatalf("revisit of a project done once: %d, %v; want the item waiting", n, err)
	}
	w.balanced(t)
	if got := w.request(t, "p", "bob", 1); !slices.Equal(got, []string{"t:1"}) {
		t.Errorf("bob got %v, want t:1 once more", got)
	}
}

// TestBooksAfterArchival: an archived item's parameters leave with it.
func TestBooksAfterArchival(t *testing.T) {
	t.Parallel()
	w := newProject(t)
	w.add(t, "p", "item:1\t{\"n\":1}")
	w.complete(t, "p", items.Completion{Downloader: "alice", Items: w.request(t, "p", "alice", 1)})
	w.archiveOld(t, "p")
	w.balanced(t)
}

// TestBooksAfterDrain: a drained item's parameters leave with it, and
// so does its score once its completion is archived.
func TestBooksAfterDrain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newProject(t, "mode=recurring", "retire_below=0.6")
	w.add(t, "p", "t:1")
	w.complete(t, "p", items.Completion{Downloader: "alice", Items: w.request(t, "p", "alice", 1),
		Outcomes: map[string]items.Outcome{"t:1": {Word: "none"}}})
	w.add(t, "p", "t:2\t{\"n\":2}")
	p := *w.projects["p"]
	for _, queue := range []string{naming.RetiredQueue, "todo"} {
		if n, err := w.engine.MoveQueue(ctx, p, queue, "", items.Selection{}); err != nil || n != 1 {
			t.Fatalf("drained %d of %s: %v", n, queue, err)
		}
	}
	w.balanced(t)
	w.archiveOld(t, "p")
	w.balanced(t)
	if n := w.rows(t, "item_scores"); n != 0 {
		t.Errorf("%d scores left", n)
	}
	if n := w.rows(t, "item_params"); n != 0 {
		t.Errorf("%d parameters left", n)
	}
}

// TestBooksAfterDrainOfArchived: an item whose completion is archived
// and that is queued again for its next visit leaves its score and
// parameters when its queue is drained, at once: nothing else holds them.
func TestBooksAfterDrainOfArchived(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newProject(t, "mode=recurring", "revisit_after=60")
	w.add(t, "p", "t:1\t{\"n\":1}", "t:2\t{\"n\":2}")
	w.complete(t, "p", items.Completion{Downloader: "alice", Items: w.request(t, "p", "alice", 2)})
	w.archiveOld(t, "p")
	dbtest.Due(t, w.pool, dbtest.Revisits(w.projects["p"].ID))
	p := *w.projects["p"]
	if n, err := w.engine.RevisitDue(ctx, p, 100); err != nil || n != 2 {
		t.Fatalf("revisited %d: %v", n, err)
	}
	if n := w.rows(t, "item_scores"); n != 2 {
		t.Fatalf("%d scores before the drain, want 2", n)
	}
	sum, err := w.store.Summary(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	var band string
	for _, q := range naming.QueueNames(sum.Queues) {
		if sum.Queues[q] == 2 && strings.HasPrefix(q, "revisit:") {
			band = q
		}
	}
	if band == "" {
		t.Fatalf("no revisit queue holds the items: %v", sum.Queues)
	}
	// t:1 drained; t:2 first handed out, so that it is held.
	out := w.request(t, "p", "bob", 1)
	if n, err := w.engine.MoveQueue(ctx, p, band, "", items.Selection{}); err != nil || n != 1 {
		t.Fatalf("drained %d of %s: %v", n, band, err)
	}
	w.balanced(t)
	// Left: the score and parameters of the item out, and no others.
	for _, table := range []string{"item_scores", "item_params"} {
		var held, others int64
		if err := w.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE c.id IS NOT NULL), count(*) FILTER (WHERE c.id IS NULL)
			FROM `+table+` x LEFT JOIN claims c ON c.project_id = x.project_id AND c.id = x.id AND c.name = $2
			WHERE x.project_id = $1`, p.ID, out[0]).Scan(&held, &others); err != nil {
			t.Fatal(err)
		}
		if held != 1 || others != 0 {
			t.Errorf("%s after the drain: %d of the item out, %d of others; want 1 and 0", table, held, others)
		}
	}
}

// TestBooksAfterModeOnceArchived: an item scored while its project was
// recurring and completed again once it is done once keeps its score no
// longer than its completion.
func TestBooksAfterModeOnceArchived(t *testing.T) {
	t.Parallel()
	w := newProject(t, "mode=recurring")
	w.add(t, "p", "t:1")
	w.complete(t, "p", items.Completion{Downloader: "alice", Items: w.request(t, "p", "alice", 1)})
	w.set(t, "p", "mode=once")
	if n, err := w.engine.RevisitDue(context.Background(), *w.projects["p"], 100); err != nil || n != 1 {
		t.Fatalf("revisit of a project done once: %d, %v", n, err)
	}
	w.complete(t, "p", items.Completion{Downloader: "bob", Items: w.request(t, "p", "bob", 1)})
	w.balanced(t)
	w.archiveOld(t, "p")
	w.balanced(t)
	if n := w.rows(t, "item_scores"); n != 0 {
		t.Errorf("%d scores left", n)
	}
}

// rows counts project p's rows in table.
func (w *world) rows(t *testing.T, table string) int64 {
	t.Helper()
	var n int64
	if err := w.pool.QueryRow(context.Background(), "SELECT count(*) FROM "+table+" WHERE project_id = $1", w.projects["p"].ID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestBooksAfterRecrawlOfScheduled: a recurring project's item waiting for
// its next visit is not queued again by a recrawl as well. The
// configuration refuses recrawl_after with mode=recurring; a view of the
// project read while it still recrawled is used here, as a process may for
// a moment after the change.
func TestBooksAfterRecrawlOfScheduled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newProject(t, "mode=recurring")
	stale := *w.projects["p"]
	stale.Config.RecrawlAfter = 3600
	if _, _, err := w.engine.Backfeed(ctx, stale, "", []items.BackfeedEntry{{Key: "t:1", Item: "t:1\x1ftag=a"}}); err != nil {
		t.Fatal(err)
	}
	w.complete(t, "p", items.Completion{Downloader: "alice", Items: w.request(t, "p", "alice", 1)})
	if _, _, err := w.engine.Backfeed(ctx, stale, "", []items.BackfeedEntry{{Key: "t:1", Item: "t:1\x1ftag=b"}}); err != nil {
		t.Fatal(err)
	}
	w.balanced(t)
}

// TestBooksAfterRequeueOfScheduled: a recurring project's item waiting for
// its next visit that an admin queues again is visited now: it leaves the
// schedule, so the revisit job neither queues it a second time nor drops
// it from the schedule while it waits in its queue.
func TestBooksAfterRequeueOfScheduled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newProject(t, "mode=recurring")
	w.add(t, "p", "t:1")
	w.complete(t, "p", items.Completion{Downloader: "alice", Items: w.request(t, "p", "alice", 1)})
	p := *w.projects["p"]
	if n, err := w.engine.RequeueDone(ctx, p, "todo", items.Exactly("t:1")); err != nil || n != 1 {
		t.Fatalf("requeued %d: %v", n, err)
	}
	w.balanced(t)
	// Off the schedule: nothing is left there to fall due.
	if n := w.rows(t, "revisits"); n != 0 {
		t.Fatalf("%d visits still scheduled", n)
	}
	if n, err := w.engine.RevisitDue(ctx, p, 100); err != nil || n != 0 {
		t.Fatalf("revisited %d: %v; want none waiting", n, err)
	}
	w.balanced(t)
	if got := w.request(t, "p", "bob", 2); !slices.Equal(got, []string{"t:1"}) {
		t.Errorf("bob got %v, want t:1 once", got)
	}
}
