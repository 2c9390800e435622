package items_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/jackc/pgx/v5"

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
