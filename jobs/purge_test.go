package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/archive"
	"tracker/audit"
	"tracker/db/dbtest"
	"tracker/dictionaries"
	"tracker/items"
	"tracker/projects"
	"tracker/stats"
	"tracker/users"
	"tracker/volunteers"
)

// projectTables are the tables with a project_id column, partitions of
// done left out (done holds their rows).
func projectTables(t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `
		SELECT c.table_name FROM information_schema.columns c
		JOIN pg_class k ON k.relname = c.table_name AND k.relnamespace = current_schema()::regnamespace
		WHERE c.table_schema = current_schema() AND c.column_name = 'project_id'
		  AND k.relkind IN ('r', 'p') AND NOT k.relispartition
		ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(tables) < 10 {
		t.Fatalf("tables %v, %v", tables, err)
	}
	return tables
}

// rowsOf counts the project's rows in each table, leaving out the empty.
func rowsOf(t *testing.T, pool *pgxpool.Pool, tables []string, p projects.Project) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, table := range tables {
		if n := count(t, pool, "SELECT count(*) FROM "+pgx.Identifier{table}.Sanitize()+" WHERE project_id = $1", p.ID); n > 0 {
			out[table] = n
		}
	}
	return out
}

// fill gives the projects rows of every kind: recurring projects with
// sites, update tags, parameters, results, scores and scheduled visits,
// claims out and expired, backfeed, completions folded and pending,
// archived days, uploads, a dictionary, blocks, upload targets, an admin,
// volunteers and rate limits.
func fill(t *testing.T, pool *pgxpool.Pool, store *projects.Store, engine *items.Engine, ps ...projects.Project) []projects.Project {
	t.Helper()
	// As an admin would: the changes are in the audit log.
	ctx := audit.NewContext(context.Background(), audit.Actor{Username: "root"})
	request := func(p projects.Project, n int) []string {
		t.Helper()
		sum, err := store.Summary(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		live := &projects.Live{Project: p, Queues: sum.Queues, Summary: sum}
		h, err := engine.Request(ctx, live, items.ClaimRequest{Downloader: "alice", Version: "1", IP: netip.MustParseAddr("192.0.2.7"), Max: n})
		if err != nil || len(h.Names) == 0 {
			t.Fatalf("request: %v, %v", h.Names, err)
		}
		return h.Names
	}
	done := func(p projects.Project, names []string) {
		t.Helper()
		outcomes := map[string]items.Outcome{}
		results := map[string]json.RawMessage{}
		for _, n := range names {
			outcomes[n] = items.Outcome{Word: "some"}
			results[n] = json.RawMessage(`{"ok": true}`)
		}
		if _, err := engine.Complete(ctx, p, items.Completion{Downloader: "alice", Version: "1", Items: names,
			Bytes: map[string]int64{"data": 1000}, Results: results, Outcomes: outcomes}); err != nil {
			t.Fatal(err)
		}
	}
	for i, p := range ps {
		p, err := store.Set(ctx, p, []string{"mode=recurring", "revisit_after=3600", "site_key=host",
			"rate_limit=600000", "reclaim_ttl=60", "archive_after=86400", "archive_mode=files"})
		if err != nil {
			t.Fatal(err)
		}
		ps[i] = p
		var lines []string
		for i := range 8 {
			lines = append(lines, fmt.Sprintf("https://s%d.example/%d\t{\"n\": %d}", i%3, i, i))
		}
		if _, err := engine.Add(ctx, p, "todo", strings.NewReader(strings.Join(lines, "\n"))); err != nil {
			t.Fatal(err)
		}
		// Update tags are kept where a project recrawls, which a recurring
		// one does not: a view from before its mode changed.
		tagged := p
		tagged.Config.RecrawlAfter = 3600
		if _, _, err := engine.Backfeed(ctx, tagged, "", []items.BackfeedEntry{
			{Key: "https://s9.example/x", Item: "https://s9.example/x\x1ftag=v1"}, {Key: "item:plain", Item: "item:plain"}}); err != nil {
			t.Fatal(err)
		}
		// Completions three days old, archived; today's, folded into the
		// statistics below; and more, left pending for the rollup.
		first := request(p, 3)
		done(p, first)
		if _, err := pool.Exec(ctx, "SELECT done_partitions_ensure($1, (now() - interval '3 days')::date, now()::date)", p.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, "UPDATE done SET done_at = done_at - interval '3 days' WHERE project_id = $1", p.ID); err != nil {
			t.Fatal(err)
		}
		if res, err := archive.New(pool, t.TempDir()).Project(ctx, p, time.Now()); err != nil || res.Items != int64(len(first)) {
			t.Fatalf("archived %+v, %v", res, err)
		}
		done(p, request(p, 2))
	}
	if _, err := stats.NewStore(pool).Fold(ctx); err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		done(p, request(p, 1))
		// A claim that expired, and claims out.
		expired := request(p, 1)
		if _, err := pool.Exec(ctx, "UPDATE claims SET claimed_at = now() - interval '1 hour' WHERE project_id = $1", p.ID); err != nil {
			t.Fatal(err)
		}
		if n, _, err := engine.ReclaimExpired(ctx, p, 10); err != nil || n != int64(len(expired)) {
			t.Fatalf("reclaimed %d, %v", n, err)
		}
		request(p, 2)

		// A receipt is kept for an item out or done: one still out.
		var out string
		if err := pool.QueryRow(ctx, `SELECT name FROM claims WHERE project_id = $1 ORDER BY id LIMIT 1`, p.ID).Scan(&out); err != nil {
			t.Fatal(err)
		}
		if err := engine.RecordUpload(ctx, p, "alice", out, "up.example", netip.MustParseAddr("192.0.2.7")); err != nil {
			t.Fatal(err)
		}
		if err := volunteers.New(pool).Mark(ctx, p.ID, netip.MustParseAddr("192.0.2.7")); err != nil {
			t.Fatal(err)
		}
		var samples [][]byte
		for i := range 60 {
			samples = append(samples, fmt.Appendf(nil, `<html><head><title>Post %d</title></head><body><div class="post">user%d wrote %x</div></body></html>`, i, i*7, i*2654435761))
		}
		dict, err := dictionaries.Train(samples, 8<<10)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := dictionaries.NewStore(pool).Add(ctx, p.ID, dict, "root"); err != nil {
			t.Fatal(err)
		}
		block, err := projects.ParseBlock(projects.BlockNick, "mallory")
		if err != nil {
			t.Fatal(err)
		}
		block.ProjectID = &p.ID
		if err := store.AddBlock(ctx, block); err != nil {
			t.Fatal(err)
		}
		if err := store.AddTarget(ctx, p, projects.Target{URL: "rsync://up.example/:downloader/", Weight: 1, Enabled: true}); err != nil {
			t.Fatal(err)
		}
		admins := users.NewStore(pool)
		u, err := admins.Create(ctx, "carol-"+p.Slug, "correct horse battery", users.RoleProjectAdmin)
		if err != nil {
			t.Fatal(err)
		}
		if err := admins.Grant(ctx, u, p.ID); err != nil {
			t.Fatal(err)
		}
	}
	return ps
}

// A deleted project is purged from every table with a project_id: the
// test fills a project with rows of every kind the tracker keeps, checks
// every such table got some, and finds none left after the purge; another
// project's rows stay.
func TestPurgeRemovesEveryTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	engine := items.NewEngine(pool, quietLog())
	ps := fill(t, pool, store, engine, create(t, store, "doomed"), create(t, store, "kept"))
	doomed, kept := ps[0], ps[1]

	tables := projectTables(t, pool)
	before := rowsOf(t, pool, tables, doomed)
	t.Logf("rows of the project: %v", before)
	for _, table := range tables {
		if before[table] == 0 {
			t.Errorf("%s: no row of the project to purge: fill it", table)
		}
	}
	keptBefore := rowsOf(t, pool, tables, kept)

	if err := store.MarkDeleting(ctx, doomed); err != nil {
		t.Fatal(err)
	}
	r := NewRunner(quietLog(), pool, Purge(store))
	if s, err := r.RunNow(ctx, "purge"); err != nil || s != "purged 1 projects" {
		t.Fatalf("purge: %q, %v", s, err)
	}
	if left := rowsOf(t, pool, tables, doomed); len(left) > 0 {
		t.Fatalf("rows of the purged project left: %v", left)
	}
	if n := count(t, pool, "SELECT count(*) FROM pg_class WHERE relname LIKE $1", fmt.Sprintf("done\\_p%d\\_%%", doomed.ID)); n != 0 {
		t.Fatalf("%d partitions of the purged project left", n)
	}
	keptAfter := rowsOf(t, pool, tables, kept)
	for _, table := range slices.Sorted(maps.Keys(keptBefore)) {
		if keptAfter[table] != keptBefore[table] {
			t.Errorf("kept: %s has %d rows, had %d", table, keptAfter[table], keptBefore[table])
		}
	}
}
