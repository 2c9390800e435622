package stats

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"tracker/db/dbtest"
	"tracker/items"
	"tracker/projects"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

func TestFoldTotalsAndSeries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	p := dbtest.Project(t, pool, "demo", "")
	engine := items.NewEngine(pool, nil)
	var names []string
	for i := range 30 {
		names = append(names, fmt.Sprintf("item:%d", i))
	}
	if _, err := engine.Add(ctx, p, "todo", strings.NewReader(strings.Join(names, "\n"))); err != nil {
		t.Fatal(err)
	}
	// alice does 2 batches of 10 (versions 1 then 2), bob one of 10.
	for _, w := range []struct {
		nick, version string
		bytes         int64
	}{{"alice", "1", 1000}, {"bob", "1", 10}, {"alice", "2", 500}} {
		sum, err := store.Summary(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		h, err := engine.Request(ctx, &projects.Live{Project: p, Queues: sum.Queues, Summary: sum},
			items.ClaimRequest{Downloader: w.nick, Version: w.version, Max: 10})
		got := h.Names
		if err != nil || len(got) != 10 {
			t.Fatalf("claimed %v, %v", got, err)
		}
		if _, err := engine.Complete(ctx, p, items.Completion{Downloader: w.nick, Version: w.version, Items: got,
			Bytes: map[string]int64{"data": w.bytes}}); err != nil {
			t.Fatal(err)
		}
	}

	s := NewStore(pool)
	n, err := s.Fold(ctx)
	if err != nil || n != 3 {
		t.Fatalf("folded %d, %v; want the 3 tallies", n, err)
	}
	type total struct {
		items, bytes int64
		version      string
	}
	got := map[string]total{}
	rows, err := pool.Query(ctx, "SELECT nick, items, bytes, version FROM downloaders WHERE project_id = $1", p.ID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var nick string
		var x total
		if err := rows.Scan(&nick, &x.items, &x.bytes, &x.version); err != nil {
			t.Fatal(err)
		}
		got[nick] = x
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if want := map[string]total{"alice": {20, 1500, "2"}, "bob": {10, 10, "1"}}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("totals %v, want %v", got, want)
	}
	for _, table := range []string{"series_minutes", "series_hours", "downloader_hours"} {
		var items, bytes int64
		if err := pool.QueryRow(ctx, "SELECT sum(items), sum(bytes) FROM "+table+" WHERE project_id = $1", p.ID).Scan(&items, &bytes); err != nil {
			t.Fatal(err)
		}
		if items != 30 || bytes != 1510 {
			t.Errorf("%s: %d items, %d bytes; want 30, 1510", table, items, bytes)
		}
	}
	// Folding again adds nothing: the tallies are gone.
	if n, err := s.Fold(ctx); err != nil || n != 0 {
		t.Fatalf("second fold %d, %v", n, err)
	}

	// Minute buckets past their keep go (one three days old, of another
	// project); hours stay.
	old := dbtest.Project(t, pool, "old", "")
	dbtest.MustExec(t, pool, "INSERT INTO series_minutes VALUES ($1, date_trunc('minute', now()), 5, 5)", old.ID)
	dbtest.Age(t, pool, 3*24*time.Hour, dbtest.SeriesMinutes(old.ID))
	if n, err := s.Prune(ctx); err != nil || n != 1 {
		t.Fatalf("pruned %d, %v", n, err)
	}
}
