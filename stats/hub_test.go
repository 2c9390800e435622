package stats

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db/dbtest"
	"tracker/items"
	"tracker/projects"
)

type fixture struct {
	pool    *pgxpool.Pool
	store   *projects.Store
	engine  *items.Engine
	project projects.Project
	hub     *Hub
}

func setup(t *testing.T, n int) fixture {
	t.Helper()
	ctx := context.Background()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	p := dbtest.Project(t, pool, "demo", "Demo")
	engine := items.NewEngine(pool, nil)
	var names []string
	for i := range n {
		names = append(names, fmt.Sprintf("item:%d", i))
	}
	if _, err := engine.Add(ctx, p, "todo", strings.NewReader(strings.Join(names, "\n"))); err != nil {
		t.Fatal(err)
	}
	hub := NewHub(pool, store, nil)
	t.Cleanup(hub.Close)
	return fixture{pool: pool, store: store, engine: engine, project: p, hub: hub}
}

// work has nick claim and complete n items reporting bytes in domain "data".
func (f fixture) work(t *testing.T, nick, version string, n int, bytes int64) {
	t.Helper()
	ctx := context.Background()
	sum, err := f.store.Summary(ctx, f.project)
	if err != nil {
		t.Fatal(err)
	}
	h, err := f.engine.Request(ctx, &projects.Live{Project: f.project, Queues: sum.Queues, Summary: sum},
		items.ClaimRequest{Downloader: nick, Version: version, Max: n})
	got := h.Names
	if err != nil || len(got) != n {
		t.Fatalf("%s claimed %v, %v", nick, got, err)
	}
	if _, err := f.engine.Complete(ctx, f.project, items.Completion{Downloader: nick, Version: version, Items: got,
		Bytes: map[string]int64{"data": bytes}}); err != nil {
		t.Fatal(err)
	}
}

func TestBoardCountsPendingAndFoldedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, 100)
	f.work(t, "alice", "2", 10, 5000)
	f.work(t, "bob", "1", 20, 300)
	f.work(t, "carol", "2", 5, 100)
	f.work(t, "alice", "2", 10, 5000)
	// Bob's version is outdated from now on.
	p, err := f.store.Set(ctx, f.project, []string{"min_version=2"})
	if err != nil {
		t.Fatal(err)
	}
	f.project = p

	check := func(stage string) {
		t.Helper()
		// A fresh hub: the board read now, not a cached one.
		hub := NewHub(f.pool, f.store, nil)
		defer hub.Close()
		b, _, _, err := hub.Board(ctx, f.project)
		if err != nil {
			t.Fatal(err)
		}
		if b.Totals.Done != 45 || b.Totals.Bytes != 10400 || b.Totals.Todo != 55 || b.Totals.Total != 100 || b.Totals.Claims != 0 {
			t.Fatalf("%s: totals %+v", stage, b.Totals)
		}
		var got []string
		for _, l := range b.Leaders {
			got = append(got, fmt.Sprintf("%d %s %d %d %v", l.Rank, l.Nick, l.Items, l.Bytes, l.Outdated))
		}
		if want := "[1 alice 20 10000 false 2 bob 20 300 true 3 carol 5 100 false]"; fmt.Sprint(got) != want {
			t.Fatalf("%s: leaders %v, want %s", stage, got, want)
		}
		if len(b.Feed) != 4 || b.Feed[0].Downloader != "alice" || b.Feed[0].Items != 10 {
			t.Fatalf("%s: feed %+v", stage, b.Feed)
		}
		if len(b.Domains) != 1 || b.Domains[0] != (Domain{Domain: "data", Bytes: 10400}) {
			t.Fatalf("%s: domains %+v", stage, b.Domains)
		}
		if b.Health.RequestServeRate == nil || *b.Health.RequestServeRate != 1 || b.Health.ReclaimRate == nil || *b.Health.ReclaimRate != 0 {
			t.Fatalf("%s: health %+v", stage, b.Health)
		}
	}
	check("before the fold") // the leaders come from pending tallies
	if _, err := NewStore(f.pool).Fold(ctx); err != nil {
		t.Fatal(err)
	}
	check("after the fold") // and now from the folded totals: the same
}

func TestRankingsAndDownloader(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, 60)
	f.work(t, "alice", "1", 10, 100)
	f.work(t, "bob", "1", 30, 50)
	f.work(t, "carol", "1", 5, 500)
	if _, err := NewStore(f.pool).Fold(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		period        Period
		order         Order
		offset, limit int
		want          string
	}{
		{AllTime, ByBytes, 0, 10, "[carol alice bob]"},
		{AllTime, ByItems, 0, 10, "[bob alice carol]"},
		{Day, ByBytes, 0, 10, "[carol alice bob]"},
		{Week, ByItems, 1, 1, "[alice]"},
		{AllTime, ByBytes, 2, -1, "[bob]"},
		{AllTime, ByBytes, 9, 10, "[]"},
	} {
		r, err := f.hub.Ranking(ctx, f.project, c.period, c.order, c.offset, c.limit)
		if err != nil {
			t.Fatal(err)
		}
		var nicks []string
		for _, l := range r.Leaders {
			nicks = append(nicks, l.Nick)
		}
		if fmt.Sprint(nicks) != c.want && !(c.want == "[]" && len(nicks) == 0) || r.Total != 3 {
			t.Errorf("%s by %s from %d: %v of %d, want %s", c.period, c.order, c.offset, nicks, r.Total, c.want)
		}
	}
	r, err := f.hub.Ranking(ctx, f.project, AllTime, ByBytes, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	var share float64
	for _, l := range r.Leaders {
		share += l.Share
	}
	if share < 0.999 || share > 1.001 || r.Leaders[0].Rank != 1 || r.Leaders[2].Rank != 3 {
		t.Errorf("ranking %+v", r)
	}

	// Alice holds claims now too.
	sum, err := f.store.Summary(ctx, f.project)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.engine.Request(ctx, &projects.Live{Project: f.project, Queues: sum.Queues, Summary: sum},
		items.ClaimRequest{Downloader: "alice", Max: 3}); err != nil {
		t.Fatal(err)
	}
	d, err := f.hub.Downloader(ctx, f.project, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if d.Rank != 2 || d.Items != 10 || d.Bytes != 100 || d.Claims != 3 || d.Day.Items != 10 || d.Week.Rank != 2 || d.LastSeen == nil {
		t.Fatalf("downloader %+v", d)
	}
	if _, err := f.hub.Downloader(ctx, f.project, "nobody"); err != ErrNoDownloader {
		t.Fatalf("unknown downloader: %v", err)
	}
	nick, err := f.hub.Nick(ctx, "carol")
	if err != nil || nick.Items != 5 || len(nick.Projects) != 1 || nick.Projects[0].Project != "demo" {
		t.Fatalf("nick %+v, %v", nick, err)
	}
}

func TestCharts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, 20)
	f.work(t, "alice", "1", 12, 1200)
	if _, err := NewStore(f.pool).Fold(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		span   Span
		nick   string
		bucket int64
	}{
		// Done just now: every span starts at the first completion, by
		// the minute (TestChartFitsItsData has the spans of an old
		// project); a downloader's by the hour.
		{SpanDay, "", 60}, {SpanWeek, "", 60}, {SpanMonth, "", 60}, {SpanAll, "", 60},
		{SpanDay, "alice", 3600}, {SpanWeek, "alice", 3600},
	} {
		ch, err := f.hub.Chart(ctx, f.project, c.span, c.nick)
		if err != nil {
			t.Fatal(err)
		}
		var items, bytes int64
		for _, pt := range ch.Points {
			items += pt.Items
			bytes += pt.Bytes
		}
		if ch.Bucket != c.bucket || items != 12 || bytes != 1200 || len(ch.Points) == 0 {
			t.Errorf("%s %q: bucket %d, %d points, %d items, %d bytes", c.span, c.nick, ch.Bucket, len(ch.Points), items, bytes)
		}
	}
}

// However many viewers ask, a project's board is read once a second: they
// share the one in memory.
func TestViewersShareTheBoard(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, 10)
	first, _, changed, err := f.hub.Board(ctx, f.project)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	seqs := make([]int64, 1000)
	for i := range seqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, _, _, err := f.hub.Board(ctx, f.project)
			if err == nil {
				seqs[i] = b.Seq
			}
		}()
	}
	wg.Wait()
	for _, s := range seqs {
		if s < first.Seq || s > first.Seq+2 {
			t.Fatalf("a viewer got board %d; the first was %d", s, first.Seq)
		}
	}
	// The next board comes within a few seconds, with the new numbers.
	f.work(t, "alice", "1", 2, 10)
	deadline := time.After(10 * time.Second)
	for {
		select {
		case <-changed:
		case <-deadline:
			t.Fatal("no board with the completion in 10 s")
		}
		b, _, next, err := f.hub.Board(ctx, f.project)
		if err != nil {
			t.Fatal(err)
		}
		if b.Totals.Done == 2 {
			return
		}
		changed = next
	}
}

// A viewer who asks for a board just as the project's refresh loop finds
// it idle gets boards that keep coming: either the loop carries on or a new
// one starts, never a watch whose loop has ended.
func TestViewerAtTheIdleCheckKeepsGettingBoards(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, 10)
	hub := NewHub(f.pool, f.store, nil)
	defer hub.Close()
	hub.every = 10 * time.Millisecond

	// A clock that stands still until moved; armed, the next reading of it
	// (the loop's idle check) runs a hook first.
	var mu sync.Mutex
	now := time.Now()
	var hook func()
	hub.now = func() time.Time {
		mu.Lock()
		at, h := now, hook
		hook = nil
		mu.Unlock()
		if h != nil {
			h()
		}
		return at
	}
	if _, _, _, err := hub.Board(ctx, f.project); err != nil {
		t.Fatal(err)
	}

	type result struct {
		changed <-chan struct{}
		err     error
	}
	got := make(chan result, 1)
	mu.Lock()
	now = now.Add(idleAfter + time.Second)
	hook = func() {
		// A viewer arrives during the idle check. Give it the time to get
		// its watch if the check lets it (it must not: the check holds the
		// hub), then let the check go on.
		returned := make(chan struct{})
		go func() {
			defer close(returned)
			_, _, ch, err := hub.Board(ctx, f.project)
			got <- result{ch, err}
		}()
		select {
		case <-returned:
		case <-time.After(200 * time.Millisecond):
		}
	}
	mu.Unlock()

	var r result
	select {
	case r = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("the viewer got no board in 10 s")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	select {
	case <-r.changed:
	case <-time.After(10 * time.Second):
		t.Fatal("the viewer's board never changes: its watch's loop has ended")
	}
}
