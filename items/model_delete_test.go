package items_test

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"pgregory.net/rapid"

	"tracker/archive"
	"tracker/books"
	"tracker/db/dbtest"
	"tracker/items"
	"tracker/jobs"
	"tracker/projects"
)

// The model test's deletions: the project is deleted in the middle of a
// sequence, while requests are in flight, and the sequence goes on with a
// new project of the same slug.

// deleteProject deletes the project while each process holds its view of
// it from before (as the project cache does for a second, and a request
// to its end) and the counts of its requests in memory. Through those
// views, requests, completions and backfeed posts go on between the
// deletion and the purge and after it: none fails, none after the purge
// hands out an item or completes one. The counts held are written after
// the purge, with the processes' next claims; a backfeed post read before
// the deletion and written after the purge is swept by the next run of
// the purge. Nothing of the project is left then, and the tracker's books
// balance.
func (w *modelWorld) deleteProject(rt *rapid.T) {
	// One step in three that draws it deletes: a deletion makes a project
	// anew, as long as a dozen other steps take.
	if rapid.IntRange(0, 2).Draw(rt, "delete now") > 0 {
		return
	}
	old := w.project
	views := [2]*projects.Live{w.procs[0].live, w.procs[1].live}
	for _, pr := range w.procs {
		pr.engine.HoldCounts()
	}
	w.inFlight(rt, views, "before", false)
	if err := w.procs[0].store.MarkDeleting(w.ctx, old); err != nil {
		rt.Fatal(err)
	}
	for _, pr := range w.procs {
		if _, err := projects.NewCache(pr.store, 0).Get(w.ctx, old.Slug); !errors.Is(err, projects.ErrNotFound) {
			rt.Fatalf("a fresh view of a deleted project: %v", err)
		}
	}
	w.inFlight(rt, views, "deleting", false)
	w.purge(rt, "purged 1 projects")
	w.inFlight(rt, views, "purged", true)

	// The sequence goes on with a new project; each process writes the
	// counts it held with its next claims: of the deleted project's (those
	// a process on Citus writes them with), then of the new one's.
	fresh := newModelWorld(rt, w.procs, old.Slug)
	w.project, w.items = fresh.project, fresh.items
	for i, pr := range w.procs {
		pr.engine.FlushCountsNext()
		w.requestThrough(rt, pr, views[i], true)
		pr.engine.FlushCountsNext()
		if _, err := pr.engine.Request(w.ctx, pr.live, items.ClaimRequest{Downloader: "alice", Version: "1", Max: 1}); !errors.As(err, new(*items.Refusal)) {
			rt.Fatalf("a request of the new project, empty: %v", err)
		}
	}
	w.gone(rt, old)

	// A backfeed post read before the deletion, written now: its rows go
	// with the next purge run.
	pr := rapid.IntRange(0, 1).Draw(rt, "process")
	if _, _, err := w.procs[pr].engine.Backfeed(w.ctx, views[pr].Project, "", []items.BackfeedEntry{{Key: "late", Item: "late"}}); err != nil {
		rt.Fatalf("a backfeed post of the deleted project, after its purge: %v", err)
	}
	w.purge(rt, "purged 0 projects, swept the rows written late of ")
	w.gone(rt, old)
}

// inFlight draws the requests, completions and backfeed posts that go on
// through the views of the project held from before its deletion. Once
// it is purged, none hands out or completes an item.
func (w *modelWorld) inFlight(rt *rapid.T, views [2]*projects.Live, label string, purged bool) {
	for range rapid.IntRange(0, 3).Draw(rt, label) {
		i := rapid.IntRange(0, 1).Draw(rt, "process")
		pr, view := w.procs[i], views[i]
		name := rapid.SampledFrom(allNames).Draw(rt, "item")
		switch rapid.SampledFrom([]string{"request", "done", "backfeed"}).Draw(rt, "in flight") {
		case "request":
			w.requestThrough(rt, pr, view, purged)
		case "done":
			n, err := pr.engine.Complete(w.ctx, view.Project, items.Completion{Downloader: rapid.SampledFrom(modelNicks).Draw(rt, "nick"),
				Version: "1", Items: []string{name}, Bytes: map[string]int64{"data": 1}})
			if err != nil || (purged && n > 0) {
				rt.Fatalf("a done of the deleted project (%s): %d completed, %v", label, n, err)
			}
		case "backfeed":
			if purged {
				continue // written late: see deleteProject
			}
			if _, _, err := pr.engine.Backfeed(w.ctx, view.Project, "", []items.BackfeedEntry{{Key: name, Item: name}}); err != nil {
				rt.Fatalf("a backfeed post of the deleted project (%s): %v", label, err)
			}
		}
	}
}

// requestThrough asks for items through a view of the deleted project:
// the request is served or refused, and once the project is purged,
// refused.
func (w *modelWorld) requestThrough(rt *rapid.T, pr *process, view *projects.Live, purged bool) {
	h, err := pr.engine.Request(w.ctx, view, items.ClaimRequest{Downloader: rapid.SampledFrom(modelNicks).Draw(rt, "nick"), Version: "1", Max: 2})
	var refused *items.Refusal
	switch {
	case err != nil && !errors.As(err, &refused):
		rt.Fatalf("a request of the deleted project: %v", err)
	case purged && refused == nil:
		rt.Fatalf("a request of the purged project: handed out %q", h.Names)
	}
}

// purge runs the purge job, whose summary must start with want (a
// sequence that failed before, in the same database, may have left rows
// for it to sweep).
func (w *modelWorld) purge(rt *rapid.T, want string) {
	pool := w.procs[0].pool
	job := jobs.Purge(pool, w.procs[0].store, w.procs[0].engine, archive.New(pool, ""))
	if s, err := jobs.NewRunner(slog.New(slog.DiscardHandler), pool, job).RunNow(w.ctx, "purge"); err != nil || !strings.HasPrefix(s, want) {
		rt.Fatalf("purge: %q, %v; want %q", s, err, want)
	}
}

// gone fails the sequence unless no row of the deleted project is left
// and the tracker's books balance.
func (w *modelWorld) gone(rt *rapid.T, old projects.Project) {
	if left := dbtest.ProjectRows(rt, w.procs[0].pool, old.ID); len(left) > 0 {
		rt.Fatalf("rows of the deleted project left: %v", left)
	}
	r, err := books.Tracker(w.ctx, w.procs[0].pool)
	if err != nil {
		rt.Fatal(err)
	}
	var off []string
	for _, c := range r.Checks {
		if !c.OK {
			off = append(off, fmt.Sprintf("%s: want %d, found %d", c.Name, c.Want, c.Found))
		}
	}
	if len(off) > 0 {
		rt.Fatalf("the tracker's books do not balance: %s", strings.Join(off, "; "))
	}
}
