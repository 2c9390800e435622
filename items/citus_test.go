package items_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
	"tracker/db/dbtest"
	"tracker/items"
	"tracker/projects"
)

// On Citus one project's dedup records are spread over every worker by the
// name's hash, while its queue stays on one worker: a backfeed post writes
// seen on both workers and todo on one, deduplicates across them, and the
// names come out as items.
func TestCitusBackfeedSpreadsSeenOverWorkers(t *testing.T) {
	dbtest.RequireCitus(t)
	t.Parallel()
	ctx := context.Background()
	dsn := dbtest.NewDSN(t)
	pool, err := db.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	p := dbtest.Project(t, pool, "spread", "Spread")
	other := dbtest.Project(t, pool, "other", "Other")
	engine := items.NewEngine(pool, slog.New(slog.NewTextHandler(io.Discard, nil)))

	const n = 200
	entries := make([]items.BackfeedEntry, n)
	for i := range entries {
		name := fmt.Sprintf("url:https://example.org/%d", i)
		entries[i] = items.BackfeedEntry{Key: name, Item: name}
	}
	fresh, dups, err := engine.Backfeed(ctx, p, "", entries)
	if err != nil || fresh != n || dups != 0 {
		t.Fatalf("backfeed: %d new, %d duplicates, %v; want %d new", fresh, dups, err, n)
	}
	// The same names again, and to another project: deduplicated per
	// project, wherever each name's record is.
	if fresh, dups, err := engine.Backfeed(ctx, p, "", entries[:50]); err != nil || fresh != 0 || dups != 50 {
		t.Fatalf("backfeed again: %d new, %d duplicates, %v; want 50 duplicates", fresh, dups, err)
	}
	if fresh, _, err := engine.Backfeed(ctx, other, "", entries[:50]); err != nil || fresh != 50 {
		t.Fatalf("backfeed to another project: %d new, %v; want 50", fresh, err)
	}

	seen := rowsPerWorker(t, pool, dsn, "seen", p.ID)
	queued := rowsPerWorker(t, pool, dsn, "todo", p.ID)
	var seenTotal, queuedOn int64
	for node, rows := range seen {
		if rows == 0 {
			t.Errorf("worker %s holds none of the project's %d dedup records", node, n)
		}
		seenTotal += rows
	}
	for _, rows := range queued {
		if rows > 0 {
			queuedOn++
		}
	}
	if seenTotal != n || queuedOn != 1 {
		t.Errorf("dedup records per worker %v, queued items per worker %v: want %d records over every worker, the items on one", seen, queued, n)
	}

	// Every name comes out once, and its completion finds it.
	got := map[string]bool{}
	for len(got) < n {
		f := fixture{pool: pool, engine: engine, store: projects.NewStore(pool), project: p}
		names, err := f.request("alice", 50)
		if err != nil || len(names) == 0 {
			t.Fatalf("claim after %d: %v %v", len(got), names, err)
		}
		for _, name := range names {
			if got[name] {
				t.Fatalf("%s handed out twice", name)
			}
			got[name] = true
		}
		if done := f.complete(t, items.Completion{Downloader: "alice", Items: names}); done != int64(len(names)) {
			t.Fatalf("completed %d of %d", done, len(names))
		}
	}
}

// rowsPerWorker counts a project's rows of a distributed table in each
// worker's shards, read on the worker itself.
func rowsPerWorker(t *testing.T, pool db.DBTX, dsn, table string, project int32) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	rows, err := pool.Query(ctx, "SELECT nodename, shard_name::text FROM citus_shards WHERE table_name = $1::regclass", table)
	if err != nil {
		t.Fatal(err)
	}
	shards := map[string][]string{}
	var node, shard string
	if _, err := pgx.ForEachRow(rows, []any{&node, &shard}, func() error {
		shards[node] = append(shards[node], shard)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int64{}
	for _, w := range dbtest.Workers(t, dsn) {
		if len(shards[w.Name]) == 0 {
			t.Fatalf("no shard of %s on worker %s: %v", table, w.Name, shards)
		}
		conn, err := pgx.Connect(ctx, w.DSN)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range shards[w.Name] {
			counts[w.Name] += dbtest.Count(t, conn, "SELECT count(*) FROM "+pgx.Identifier{s}.Sanitize()+" WHERE project_id = $1", project)
		}
		conn.Close(ctx)
	}
	return counts
}

// On Citus a claim by site, its completion and a site's release run on the
// project's worker alone: every statement is sent to one worker (Citus
// refuses, by the setting, any that it would split over several), none
// reads every worker's shards for one project's sites.
func TestCitusClaimBySiteOnOneWorker(t *testing.T) {
	dbtest.RequireCitus(t)
	t.Parallel()
	ctx := context.Background()
	dsn := dbtest.NewDSN(t)
	pool, err := db.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	routed, err := db.Open(ctx, dsn, func(cfg *pgxpool.Config) {
		cfg.ConnConfig.RuntimeParams["citus.multi_task_query_log_level"] = "error"
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(routed.Close)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	// The items are queued by a pool that may use every worker: an import
	// records its names in seen, spread over them.
	f := fixture{pool: pool, engine: items.NewEngine(pool, logger), store: projects.NewStore(pool),
		project: dbtest.Project(t, pool, "routed", "Routed", "site_key=host", "site_claims_limit=2", "site_interval=0")}
	f.add(t, "todo", "https://a.example/1", "https://a.example/2", "https://b.example/1", "https://c.example/1")
	f.engine, f.store = items.NewEngine(routed, logger), projects.NewStore(routed)

	got := f.claim(t, "alice", 4)
	slices.Sort(got)
	if want := []string{"https://a.example/1", "https://a.example/2", "https://b.example/1", "https://c.example/1"}; !slices.Equal(got, want) {
		t.Fatalf("alice got %v, want %v", got, want)
	}
	if n := f.complete(t, items.Completion{Downloader: "alice", Items: got[:1]}); n != 1 {
		t.Fatalf("completed %d of 1", n)
	}
	if name, n, err := f.engine.ReleaseSite(ctx, f.project, "b.example"); err != nil || name != "b.example" || n != 1 {
		t.Fatalf("release of b.example: %q %d, %v; want its one item", name, n, err)
	}
	if got := f.claim(t, "bob", 4); !slices.Equal(got, []string{"https://b.example/1"}) {
		t.Fatalf("bob got %v, want b.example's item back", got)
	}
	if s := f.site(t, "a.example"); s.Queued != 0 || s.Out != 1 || s.Downloader != "alice" {
		t.Fatalf("a.example: %+v", s)
	}
}

// On Citus the hand-out of expired claims to a new downloader runs on the
// project's worker alone, as every statement of a claim does.
func TestCitusReclaimOnOneWorker(t *testing.T) {
	dbtest.RequireCitus(t)
	t.Parallel()
	ctx := context.Background()
	dsn := dbtest.NewDSN(t)
	pool, err := db.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	routed, err := db.Open(ctx, dsn, func(cfg *pgxpool.Config) {
		cfg.ConnConfig.RuntimeParams["citus.multi_task_query_log_level"] = "error"
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(routed.Close)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	f := fixture{pool: pool, engine: items.NewEngine(pool, logger), store: projects.NewStore(pool),
		project: dbtest.Project(t, pool, "reclaimed", "Reclaimed", "reclaim_ttl=60")}
	f.add(t, "todo", "a", "b")
	f.engine, f.store = items.NewEngine(routed, logger), projects.NewStore(routed)

	got := f.claim(t, "alice", 2)
	slices.Sort(got)
	dbtest.Age(t, pool, 2*time.Hour, dbtest.Claims(f.project.ID))
	again := f.claim(t, "bob", 2)
	slices.Sort(again)
	if !slices.Equal(got, []string{"a", "b"}) || !slices.Equal(again, got) {
		t.Fatalf("alice got %v, bob %v once her claims expired; want a and b both times", got, again)
	}
}
