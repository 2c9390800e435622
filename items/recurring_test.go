package items_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"tracker/db/dbtest"
	"tracker/items"
	"tracker/naming"
	"tracker/refusal"
)

// due makes every scheduled visit due and runs the revisit job's step.
func (f fixture) due(t *testing.T) int64 {
	t.Helper()
	ctx := context.Background()
	dbtest.Due(t, f.pool, dbtest.Revisits(f.project.ID))
	n, err := f.engine.RevisitDue(ctx, f.project, 100)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (f fixture) visit(t *testing.T, nick string, outcomes map[string]items.Outcome, names ...string) {
	t.Helper()
	f.complete(t, items.Completion{Downloader: nick, Items: names, Bytes: map[string]int64{"data": 1}, Outcomes: outcomes})
}

// In a recurring project a done schedules the item's next visit; the
// outcome adapts its score, due items go out highest score first, and an
// item whose score falls too low retires until an admin revives it.
func TestRecurringVisitsByScore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	var err error
	if f.project, err = f.store.Set(ctx, f.project, []string{"mode=recurring", "revisit_after=3600", "retire_below=0.3"}); err != nil {
		t.Fatal(err)
	}
	f.add(t, "todo", "t:full", "t:none", "t:some")
	if got := f.claim(t, "alice", 3); len(got) != 3 {
		t.Fatalf("alice got %v", got)
	}
	before := time.Now()
	f.visit(t, "alice", map[string]items.Outcome{"t:full": {Word: "full"}, "t:none": {Word: "none"}, "t:some": {Number: 0.8}},
		"t:full", "t:none", "t:some")

	st := f.status(t, "t:full")
	if st.Status != items.StatusScheduled || st.Score == nil || *st.Score != 1.2 || st.DueAt == nil ||
		st.DueAt.Before(before.Add(59*time.Minute)) || st.Downloader != "alice" {
		t.Fatalf("after a visit: %+v", st)
	}
	if s := f.summary(t); s.Revisits != 3 || s.Done != 3 || s.Queued() != 0 {
		t.Fatalf("summary: %d waiting, %d done, %d queued", s.Revisits, s.Done, s.Queued())
	}
	if got := f.claim(t, "bob", 3); len(got) != 0 {
		t.Fatalf("items handed out before they were due: %v", got)
	}

	// Due: highest score first, new items (score 1) between.
	if n := f.due(t); n != 3 {
		t.Fatalf("%d items due, want 3", n)
	}
	f.add(t, "todo", "t:new")
	if got := f.claim(t, "bob", 4); !slices.Equal(got, []string{"t:full", "t:new", "t:some", "t:none"}) {
		t.Fatalf("visit order %v, want by score", got)
	}

	// t:none falls to 0.25, below 0.3: it retires, the others go on.
	f.visit(t, "bob", map[string]items.Outcome{"t:none": {Word: "none"}}, "t:full", "t:new", "t:some", "t:none")
	if st := f.status(t, "t:none"); st.Status != items.StatusRetired || *st.Score != 0.25 {
		t.Fatalf("retired item: %+v", st)
	}
	if s := f.summary(t); s.Retired() != 1 || s.Revisits != 3 {
		t.Fatalf("summary: %d retired, %d waiting", s.Retired(), s.Revisits)
	}
	// Revived: back in circulation with its first score.
	if n, err := f.engine.MoveQueue(ctx, f.project, naming.RetiredQueue, "todo", items.Exactly("t:none")); err != nil || n != 1 {
		t.Fatalf("revive: %d, %v", n, err)
	}
	if st := f.status(t, "t:none"); st.Status != items.StatusTodo || *st.Score != 1 {
		t.Fatalf("revived: %+v", st)
	}
	f.balanced(t)

	// An item waiting for its visit, queued again by an admin, is visited
	// now: it leaves the schedule.
	if n, err := f.engine.RequeueDone(ctx, f.project, "redo", items.Exactly("t:full")); err != nil || n != 1 {
		t.Fatalf("requeue of a scheduled item: %d, %v", n, err)
	}
	if st := f.status(t, "t:full"); st.Status != items.StatusTodo || st.Queue != "redo" {
		t.Fatalf("requeued: %+v", st)
	}
	f.balanced(t)

	// An outcome that is no word nor factor refuses the done.
	f.claim(t, "carol", 1)
	_, err = f.engine.Complete(ctx, f.project, items.Completion{Downloader: "carol", Items: []string{"t:none"},
		Outcomes: map[string]items.Outcome{"t:none": {Word: "lots"}}})
	var bad *refusal.Error
	if !errors.As(err, &bad) {
		t.Fatalf("bad outcome: %v", err)
	}
}

// A done may name one item twice, under two contexts: its completion is
// recorded once, with the result and the outcome given first in the order
// of the items (a result or outcome per name would record it twice, or
// fail the whole done).
func TestDoneNamingAnItemTwice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	var err error
	if f.project, err = f.store.Set(ctx, f.project, []string{"mode=recurring", "revisit_after=3600", "retire_below=0.01"}); err != nil {
		t.Fatal(err)
	}
	f.add(t, "todo", "post:1")
	if got := f.claim(t, "alice", 1); !slices.Equal(got, []string{"post:1"}) {
		t.Fatalf("alice got %v", got)
	}
	names := []string{"post:1\x1ftag=b", "post:1", "post:1\x1ftag=c"}
	n := f.complete(t, items.Completion{Downloader: "alice", Items: names, Bytes: map[string]int64{"data": 3},
		Results:  map[string]json.RawMessage{names[1]: json.RawMessage(`{"r":1}`), names[2]: json.RawMessage(`{"r":2}`)},
		Outcomes: map[string]items.Outcome{names[0]: {Word: "none"}, names[1]: {Word: "full"}, names[2]: {Word: "some"}}})
	if n != 1 {
		t.Fatalf("completed %d", n)
	}
	var done int64
	var result string
	if err := f.pool.QueryRow(ctx, `SELECT count(*), min(result::text) FROM done WHERE project_id = $1`, f.project.ID).Scan(&done, &result); err != nil {
		t.Fatal(err)
	}
	if done != 1 || result != `{"r": 1}` {
		t.Fatalf("%d completions, result %s; want one, with the first result given", done, result)
	}
	if st := f.status(t, "post:1"); st.Score == nil || *st.Score != 0.5 {
		t.Fatalf("score %v, want the first outcome's 0.5", st.Score)
	}
}

// A result and an outcome belong to the item their name names, whatever
// context it carries: an item queued and claimed under one context and
// reported under another keeps them (they travel keyed by the name up to
// its context, the part the item's hash is of).
func TestDoneResultUnderAnotherContext(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	var err error
	if f.project, err = f.store.Set(ctx, f.project, []string{"mode=recurring", "revisit_after=3600", "retire_below=0.01"}); err != nil {
		t.Fatal(err)
	}
	f.add(t, "todo", "post:2\x1ftag=a")
	if got := f.claim(t, "alice", 1); !slices.Equal(got, []string{"post:2\x1ftag=a"}) {
		t.Fatalf("alice got %q", got)
	}
	name := "post:2\x1ftag=b"
	n := f.complete(t, items.Completion{Downloader: "alice", Items: []string{name}, Bytes: map[string]int64{"data": 1},
		Results:  map[string]json.RawMessage{name: json.RawMessage(`{"r":2}`)},
		Outcomes: map[string]items.Outcome{name: {Word: "none"}}})
	if n != 1 {
		t.Fatalf("completed %d", n)
	}
	var result string
	if err := f.pool.QueryRow(ctx, `SELECT coalesce(min(result::text), '') FROM done WHERE project_id = $1`, f.project.ID).Scan(&result); err != nil {
		t.Fatal(err)
	}
	if result != `{"r": 2}` {
		t.Fatalf("result %q, want the one reported", result)
	}
	st := f.status(t, "post:2")
	if st.Score == nil {
		t.Fatalf("no score, want the outcome's 0.5")
	}
	if *st.Score != 0.5 {
		t.Fatalf("score %v, want the outcome's 0.5", *st.Score)
	}
}
