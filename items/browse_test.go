package items_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"tracker/audit"
	"tracker/books"
	"tracker/items"
	"tracker/projects"
	"tracker/refusal"
)

// browse reads a page of a list, failing the test on an error.
func (f fixture) browse(t *testing.T, bq items.BrowseQuery) items.BrowsePage {
	t.Helper()
	page, err := f.engine.Browse(context.Background(), f.project, bq)
	if err != nil {
		t.Fatal(err)
	}
	return page
}

func names(page items.BrowsePage) []string {
	var out []string
	for _, it := range page.Items {
		out = append(out, it.Name)
	}
	return out
}

// A queue is paged by key, forward to its end and back to its start, in
// id order across the stretches of its limited types: each item once, no
// page past an end, and the pages back are the pages forward.
func TestBrowseQueueKeyset(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	var err error
	// Two limited types: the queue is three stretches, read merged by id.
	if f.project, err = f.store.Set(ctx, f.project, []string{"type_limits=post:600,user:60"}); err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range 250 {
		want = append(want, fmt.Sprintf("%s:%03d", []string{"post", "user", "page"}[i%3], i))
	}
	f.add(t, "todo", want...)

	var forward [][]string
	bq := items.BrowseQuery{Source: "todo", Max: 100}
	page := f.browse(t, bq)
	if page.Prev != nil {
		t.Fatalf("the first page has a previous one: %+v", page.Prev)
	}
	for {
		forward = append(forward, names(page))
		if page.Next == nil {
			break
		}
		bq.After = page.Next
		page = f.browse(t, bq)
		if page.Prev == nil {
			t.Fatal("a later page has no previous one")
		}
	}
	if got := slices.Concat(forward...); !slices.Equal(got, want) {
		t.Fatalf("forward: %d items, in order %v", len(got), slices.Equal(got, want))
	}
	if len(forward) != 3 || len(forward[2]) != 50 {
		t.Fatalf("pages of %v", len(forward))
	}
	// Back from the end: the same pages, from the last.
	bq = items.BrowseQuery{Source: "todo", Max: 100, Before: &items.LastKey}
	page = f.browse(t, bq)
	if page.Next != nil {
		t.Fatalf("the last page has a next one: %+v", page.Next)
	}
	var backward [][]string
	for {
		backward = append(backward, names(page))
		if page.Prev == nil {
			break
		}
		bq.Before = page.Prev
		page = f.browse(t, bq)
	}
	reversed := slices.Clone(backward)
	slices.Reverse(reversed)
	if got := slices.Concat(reversed...); !slices.Equal(got, want) {
		t.Fatalf("backward: %d items", len(got))
	}
	if len(backward[0]) != 100 || len(backward[2]) != 50 {
		t.Fatalf("pages back: %d %d", len(backward[0]), len(backward[2]))
	}
	// Previous from the second page is the first page again.
	second := f.browse(t, items.BrowseQuery{Source: "todo", Max: 100, After: f.browse(t, items.BrowseQuery{Source: "todo", Max: 100}).Next})
	first := f.browse(t, items.BrowseQuery{Source: "todo", Max: 100, Before: second.Prev})
	if !slices.Equal(names(first), forward[0]) || first.Prev != nil {
		t.Fatalf("previous of the second page: %v, prev %v", names(first)[:3], first.Prev)
	}

	// QueuePage (tracker queue list) merges the stretches by id too.
	var listed []string
	for after := int64(0); ; {
		page, err := f.engine.QueuePage(ctx, f.project, "todo", "", after, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page {
			listed = append(listed, it.Name)
		}
		if len(page) < 100 {
			break
		}
		after = page[len(page)-1].ID
	}
	if !slices.Equal(listed, want) {
		t.Fatalf("queue pages: %d items, in order %v", len(listed), slices.Equal(listed, want))
	}

	// Bounds: page sizes, both cursors, a queue that is none.
	for _, bad := range []items.BrowseQuery{
		{Source: "todo", Max: 0},
		{Source: "todo", Max: items.MaxBrowsePage + 1},
		{Source: "todo", Max: 10, After: &items.BrowseKey{ID: 1}, Before: &items.BrowseKey{ID: 2}},
		{Source: "nowhere", Max: 10},
	} {
		var invalid *refusal.Error
		if _, err := f.engine.Browse(ctx, f.project, bad); !errors.As(err, &invalid) {
			t.Errorf("%+v: %v, want refused", bad, err)
		}
	}
}

// A search reads at most BrowseScan entries a page: one that matches
// nothing there ends its page, partial, and the next page searches on.
// A regular expression PostgreSQL refuses is the admin's mistake.
func TestBrowseSearchIsBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	var lines []string
	for i := range items.BrowseScan + 2000 {
		lines = append(lines, fmt.Sprintf("item:%05d", i))
	}
	lines[len(lines)-1] = "needle:1"
	f.add(t, "todo", lines...)

	bq := items.BrowseQuery{Source: "todo", Max: 50, Filter: items.BrowseFilter{Contains: "eedl"}}
	page := f.browse(t, bq)
	if len(page.Items) != 0 || !page.Partial || page.Next == nil || page.Scanned != items.BrowseScan {
		t.Fatalf("first page: %d items, partial %v, next %v, scanned %d", len(page.Items), page.Partial, page.Next, page.Scanned)
	}
	bq.After = page.Next
	page = f.browse(t, bq)
	if got := names(page); !slices.Equal(got, []string{"needle:1"}) || page.Next != nil || page.Partial {
		t.Fatalf("second page: %v, next %v", got, page.Next)
	}
	// By prefix and by pattern.
	page = f.browse(t, items.BrowseQuery{Source: "todo", Max: 5, Filter: items.BrowseFilter{Prefix: "item:001", Pattern: "[05]$"}})
	if got := names(page); !slices.Equal(got, []string{"item:00100", "item:00105", "item:00110", "item:00115", "item:00120"}) || page.Next == nil {
		t.Fatalf("prefix and pattern: %v", got)
	}
	var invalid *refusal.Error
	if _, err := f.engine.Browse(ctx, f.project, items.BrowseQuery{Source: "todo", Max: 5, Filter: items.BrowseFilter{Pattern: "(("}}); !errors.As(err, &invalid) || !strings.Contains(err.Error(), "invalid pattern") {
		t.Fatalf("bad pattern: %v", err)
	}
}

// The claims, the schedule and the completed items are lists of the
// browser too, each paged by its own key.
func TestBrowseClaimsScheduleDone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	var err error
	if f.project, err = f.store.Set(ctx, f.project, []string{"mode=recurring"}); err != nil {
		t.Fatal(err)
	}
	f.add(t, "todo", "a:1", "a:2", "a:3", "a:4", "a:5")
	got := f.claim(t, "alice", 5)
	f.complete(t, items.Completion{Downloader: "alice", Items: got[:2], Bytes: map[string]int64{"data": 10}})

	claims := f.browse(t, items.BrowseQuery{Source: items.BrowseClaims, Max: 2})
	if len(claims.Items) != 2 || claims.Next == nil || claims.Items[0].Downloader != "alice" {
		t.Fatalf("claims: %+v", claims)
	}
	rest := f.browse(t, items.BrowseQuery{Source: items.BrowseClaims, Max: 2, After: claims.Next})
	if len(rest.Items) != 1 || rest.Next != nil || slices.Contains(names(claims), rest.Items[0].Name) {
		t.Fatalf("claims, second page: %v after %v", names(rest), names(claims))
	}
	scheduled := f.browse(t, items.BrowseQuery{Source: items.BrowseScheduled, Max: 10})
	if len(scheduled.Items) != 2 || scheduled.Items[0].Score <= 0 || scheduled.Items[0].At.Before(scheduled.Items[1].At.Add(-1)) {
		t.Fatalf("scheduled: %+v", scheduled.Items)
	}
	done := f.browse(t, items.BrowseQuery{Source: items.BrowseDone, Max: 10, Filter: items.BrowseFilter{Prefix: "a:"}})
	if len(done.Items) != 2 || done.Items[0].Bytes != 5 || done.Items[0].Downloader != "alice" {
		t.Fatalf("done: %+v", done.Items)
	}
}

// An action on a selection touches the items named and nothing else: not
// the items beside them, nor a name ticked in another queue; and the audit
// log names them.
func TestSelectedActionsTouchOnlySelected(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := audit.NewContext(context.Background(), audit.Actor{Username: "root"})
	f.add(t, "todo", "p:1", "p:2", "p:3", "p:4", "p:5", "p:6")
	f.add(t, "redo", "r:1")

	if n, err := f.engine.CountSelected(ctx, f.project, "todo", []string{"p:2", "p:4", "r:1", "never:seen"}); err != nil || n != 2 {
		t.Fatalf("count: %d %v", n, err)
	}
	n, err := f.engine.MoveSelected(ctx, f.project, "todo", "secondary", []string{"p:2", "p:4", "r:1", "never:seen"})
	if err != nil || n != 2 {
		t.Fatalf("move: %d %v", n, err)
	}
	if got := names(f.browse(t, items.BrowseQuery{Source: "secondary", Max: 10})); !slices.Equal(got, []string{"p:2", "p:4"}) {
		t.Fatalf("secondary: %v", got)
	}
	if got := names(f.browse(t, items.BrowseQuery{Source: "todo", Max: 10})); !slices.Equal(got, []string{"p:1", "p:3", "p:5", "p:6"}) {
		t.Fatalf("todo: %v", got)
	}
	if got := names(f.browse(t, items.BrowseQuery{Source: "redo", Max: 10})); !slices.Equal(got, []string{"r:1"}) {
		t.Fatalf("redo: %v", got)
	}
	// Dropped: gone from the queue, still seen.
	if n, err := f.engine.MoveSelected(ctx, f.project, "todo", "", []string{"p:5"}); err != nil || n != 1 {
		t.Fatalf("drop: %d %v", n, err)
	}
	if res := f.add(t, "todo", "p:5"); res.Added != 0 {
		t.Fatal("a dropped item was queued again")
	}
	// Released: only the claims named.
	out := f.claim(t, "alice", 3) // p:1, p:3, p:6
	if n, err := f.engine.ReleaseSelected(ctx, f.project, []string{out[1], "p:2"}); err != nil || n != 1 {
		t.Fatalf("release: %d %v", n, err)
	}
	if got := names(f.browse(t, items.BrowseQuery{Source: items.BrowseClaims, Max: 10})); len(got) != 2 || slices.Contains(got, out[1]) {
		t.Fatalf("claims after the release: %v", got)
	}
	// Completed items queued again: only those named.
	f.complete(t, items.Completion{Downloader: "alice", Items: []string{out[0], out[2]}, Bytes: map[string]int64{"data": 1}})
	if n, err := f.engine.RequeueSelected(ctx, f.project, "redo", []string{out[2]}); err != nil || n != 1 {
		t.Fatalf("requeue: %d %v", n, err)
	}
	if got := names(f.browse(t, items.BrowseQuery{Source: "redo", Max: 10})); !slices.Equal(got, []string{out[2], "r:1"}) && !slices.Equal(got, []string{"r:1", out[2]}) {
		t.Fatalf("redo after the requeue: %v", got)
	}
	// Refused: nothing ticked, too much ticked, the same queue twice.
	for _, err := range []error{
		func() error { _, err := f.engine.MoveSelected(ctx, f.project, "todo", "redo", nil); return err }(),
		func() error {
			_, err := f.engine.MoveSelected(ctx, f.project, "todo", "redo", make([]string, items.MaxSelected+1))
			return err
		}(),
		func() error {
			_, err := f.engine.MoveSelected(ctx, f.project, "todo", "todo", []string{"p:1"})
			return err
		}(),
	} {
		var invalid *refusal.Error
		if !errors.As(err, &invalid) {
			t.Errorf("%v: want refused", err)
		}
	}
	// The audit log names the items of each action.
	entries, err := audit.New(f.pool).OfItem(ctx, f.project.ID, "p:4", 10)
	if err != nil || len(entries) != 1 || entries[0].Action != "queue.move" || !strings.Contains(entries[0].Detail, `"items": 2`) {
		t.Fatalf("audit of p:4: %+v %v", entries, err)
	}
	if r, err := books.Of(ctx, f.pool, f.project); err != nil || !r.Balanced {
		t.Fatalf("books: %+v %v", r, err)
	}
}

// Moving a recurring project's scheduled items to their visit now puts
// them in the queue of their score, or the queue named.
func TestVisitSelected(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	var err error
	if f.project, err = f.store.Set(ctx, f.project, []string{"mode=recurring"}); err != nil {
		t.Fatal(err)
	}
	f.add(t, "todo", "v:1", "v:2", "v:3")
	f.complete(t, items.Completion{Downloader: "alice", Items: f.claim(t, "alice", 3), Bytes: map[string]int64{"data": 3}})
	if n, err := f.engine.VisitSelected(ctx, f.project, "", []string{"v:1"}); err != nil || n != 1 {
		t.Fatalf("visit now: %d %v", n, err)
	}
	if n, err := f.engine.VisitSelected(ctx, f.project, "secondary", []string{"v:2"}); err != nil || n != 1 {
		t.Fatalf("visit now in secondary: %d %v", n, err)
	}
	s := f.summary(t)
	if s.Queues["revisit:20"] != 1 || s.Queues["secondary"] != 1 || s.Revisits != 1 {
		t.Fatalf("after: %+v, %d waiting", s.Queues, s.Revisits)
	}
	if r, err := books.Of(ctx, f.pool, f.project); err != nil || !r.Balanced {
		t.Fatalf("books: %+v %v", r, err)
	}
}

// An item's history: when and how it was first queued (by an import, by a
// backfeed post in a shard under a key of its own), its claims that ran
// out with their addresses, its completion with bytes and result, its
// claim out now.
func TestHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	var err error
	if f.project, err = f.store.Set(ctx, f.project, []string{"reclaim_ttl=60"}); err != nil {
		t.Fatal(err)
	}
	f.add(t, "todo", "h:1")
	if _, err := f.engine.BackfeedPost(ctx, f.project, items.BackfeedOptions{Shard: "s1"},
		[]items.BackfeedEntry{{Key: "key-of-h2", Item: "h:2"}, {Key: "h:3", Item: "h:3"}}); err != nil {
		t.Fatal(err)
	}
	live := func() *projects.Live {
		l, err := projects.NewCache(f.store, 0).Get(ctx, f.project.Slug)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	claim := func(nick, ip string) []string {
		h, err := f.engine.Request(ctx, live(), items.ClaimRequest{Downloader: nick, IP: netip.MustParseAddr(ip), Max: 1})
		if err != nil {
			t.Fatal(err)
		}
		return h.Names
	}
	if got := claim("slow", "192.0.2.1"); !slices.Equal(got, []string{"h:1"}) {
		t.Fatalf("claimed %v", got)
	}
	f.expire(t)
	claim("fast", "192.0.2.2")
	f.complete(t, items.Completion{Downloader: "fast", Items: []string{"h:1"}, Bytes: map[string]int64{"data": 1234},
		Results: map[string]json.RawMessage{"h:1": json.RawMessage(`{"ok":true}`)}})

	h, err := f.engine.History(ctx, live(), "h:1")
	if err != nil {
		t.Fatal(err)
	}
	if h.Status.Status != items.StatusDone || h.Queued == nil || h.Queued.Source != items.BatchImport || h.Queued.Queue != "todo" || !h.Queued.OwnKey {
		t.Fatalf("h:1: %+v queued %+v", h.Status, h.Queued)
	}
	if len(h.Expired) != 1 || h.Expired[0].Downloader != "slow" || h.Expired[0].IP.String() != "192.0.2.1" {
		t.Fatalf("expired: %+v", h.Expired)
	}
	if len(h.Done) != 1 || h.Done[0].Downloader != "fast" || h.Done[0].Bytes != 1234 || h.Done[0].IP.IsValid() ||
		string(h.Done[0].Result) != `{"ok": true}` {
		t.Fatalf("done: %+v", h.Done)
	}
	h2, err := f.engine.History(ctx, live(), "h:2")
	if err != nil {
		t.Fatal(err)
	}
	if q := h2.Queued; q == nil || q.Source != items.BatchBackfeed || q.Shard != "s1" || q.Queue != "backfeed" || q.OwnKey || h2.Claim != nil {
		t.Fatalf("h:2 queued %+v", q)
	}
	h3, err := f.engine.History(ctx, live(), "h:3")
	if err != nil || h3.Queued == nil || !h3.Queued.OwnKey {
		t.Fatalf("h:3 queued %+v, %v", h3.Queued, err)
	}
	// A project in random order keeps no batches: its ids do not lead
	// back to them.
	if f.project, err = f.store.Set(ctx, f.project, []string{"order=random"}); err != nil {
		t.Fatal(err)
	}
	f.add(t, "todo", "h:4")
	if h4, err := f.engine.History(ctx, live(), "h:4"); err != nil || h4.Queued != nil || h4.Status.Status != items.StatusTodo {
		t.Fatalf("h:4 in random order: %+v %v", h4.Queued, err)
	}
}

// The finder lists the items whose names start with a prefix wherever
// they are, list by list, and goes on from where a page stopped.
func TestFindItems(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	f.add(t, "todo", "f:1", "g:1", "f:2")
	f.add(t, "secondary", "f:3")
	out := f.claim(t, "alice", 1) // f:1
	f.complete(t, items.Completion{Downloader: "alice", Items: out, Bytes: map[string]int64{"data": 1}})
	f.claim(t, "alice", 1) // g:1
	f.claim(t, "alice", 1) // f:2

	var found []string
	var cursor *items.FindCursor
	for pages := 0; ; pages++ {
		page, err := f.engine.FindItems(ctx, f.project, "f:", cursor, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			found = append(found, it.Source+" "+it.Name)
		}
		if cursor = page.Next; cursor == nil || pages > 10 {
			break
		}
	}
	if want := []string{"secondary f:3", "claims f:2", "done f:1"}; !slices.Equal(found, want) {
		t.Fatalf("found %v, want %v", found, want)
	}
}
