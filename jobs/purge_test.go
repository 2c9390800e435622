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
	"tracker/books"
	"tracker/db"
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
		if n := dbtest.Count(t, pool, "SELECT count(*) FROM "+pgx.Identifier{table}.Sanitize()+" WHERE project_id = $1", p.ID); n > 0 {
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
		dbtest.Age(t, pool, 3*24*time.Hour, dbtest.Completions(p.ID))
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
		dbtest.Age(t, pool, time.Hour, dbtest.Claims(p.ID))
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

// fingerprints reads the project's rows in each table as a count and a
// digest of their text, leaving out the empty: rows changed, not only
// rows removed, show.
func fingerprints(t *testing.T, pool *pgxpool.Pool, tables []string, p projects.Project) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, table := range tables {
		var (
			n      int64
			digest string
		)
		sql := "SELECT count(*), md5(coalesce(string_agg(r::text, E'\\n' ORDER BY r::text), '')) FROM " +
			pgx.Identifier{table}.Sanitize() + " r WHERE project_id = $1"
		if err := pool.QueryRow(context.Background(), sql, p.ID).Scan(&n, &digest); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if n > 0 {
			out[table] = fmt.Sprintf("%d rows, %s", n, digest)
		}
	}
	return out
}

// A deleted project is purged from every table with a project_id: the
// test fills a project with rows of every kind the tracker keeps, checks
// every such table got some, and finds none left after the purge; another
// project's rows stay as they were. A table of more rows than a batch is
// purged whole, and a purge that fails midway carries on at the next run.
func TestPurgeRemovesEveryTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	engine := items.NewEngine(pool, quietLog())
	ps := fill(t, pool, store, engine, dbtest.Project(t, pool, "doomed", ""), dbtest.Project(t, pool, "kept", ""))
	doomed, kept := ps[0], ps[1]
	// Counters of two batches and more.
	if _, err := pool.Exec(ctx, `INSERT INTO counters (project_id, name, shard, value)
		SELECT $1, 'probe:' || g, 0, 1 FROM generate_series(1, $2::int) g`, doomed.ID, 2*db.PurgeBatch+1); err != nil {
		t.Fatal(err)
	}

	tables := projectTables(t, pool)
	before := rowsOf(t, pool, tables, doomed)
	t.Logf("rows of the project: %v", before)
	for _, table := range tables {
		if before[table] == 0 {
			t.Errorf("%s: no row of the project to purge: fill it", table)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	keptBefore := fingerprints(t, pool, tables, kept)
	for _, table := range tables {
		if keptBefore[table] == "" {
			t.Fatalf("%s: no row of the project kept: fill it", table)
		}
	}

	if err := store.MarkDeleting(ctx, doomed); err != nil {
		t.Fatal(err)
	}
	// The purge fails in its last package's tables, after the items went.
	faultDeletes(t, pool, "archived", doomed)
	r := NewRunner(quietLog(), pool, Purge(pool, store, engine, archive.New(pool, t.TempDir())))
	if s, err := r.RunNow(ctx, "purge"); err == nil || !strings.Contains(err.Error(), "injected_fault") || s != "purged 0 projects" {
		t.Fatalf("purge with a fault: %q, %v", s, err)
	}
	midway := rowsOf(t, pool, tables, doomed)
	if midway["todo"] != 0 || midway["counters"] != 0 || midway["archived"] == 0 {
		t.Fatalf("rows after a purge stopped by a fault: %v", midway)
	}
	if n := dbtest.Count(t, pool, "SELECT count(*) FROM projects WHERE id = $1", doomed.ID); n != 1 {
		t.Fatalf("project's row gone before its rows: %d", n)
	}
	if _, err := pool.Exec(ctx, "DROP TRIGGER injected_fault_archived ON archived"); err != nil {
		t.Fatal(err)
	}
	if s, err := r.RunNow(ctx, "purge"); err != nil || s != "purged 1 projects" {
		t.Fatalf("purge: %q, %v", s, err)
	}
	if left := rowsOf(t, pool, tables, doomed); len(left) > 0 {
		t.Fatalf("rows of the purged project left: %v", left)
	}
	if n := dbtest.Count(t, pool, "SELECT count(*) FROM projects WHERE id = $1", doomed.ID); n != 0 {
		t.Fatalf("the purged project's row left")
	}
	if n := dbtest.Count(t, pool, "SELECT count(*) FROM pg_class WHERE relname LIKE $1", fmt.Sprintf("done\\_p%d\\_%%", doomed.ID)); n != 0 {
		t.Fatalf("%d partitions of the purged project left", n)
	}
	if n := dbtest.Count(t, pool, "SELECT count(*) FROM projects WHERE id = $1", kept.ID); n != 1 {
		t.Fatalf("the kept project's row: %d", n)
	}
	keptAfter := fingerprints(t, pool, tables, kept)
	for _, table := range tables {
		if keptAfter[table] != keptBefore[table] {
			t.Errorf("kept: %s has %s, had %s", table, keptAfter[table], keptBefore[table])
		}
	}
}

// The purges that hold the project refuse one that is not being deleted,
// and remove nothing of it: a purge called by mistake cannot empty a live
// project.
func TestPurgeRefusesALiveProject(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	engine := items.NewEngine(pool, quietLog())
	p := dbtest.Project(t, pool, "live", "")
	complete(t, store, engine, p, "item", 3)
	tables := projectTables(t, pool)
	before := fingerprints(t, pool, tables, p)
	if before["seen"] == "" || before["done"] == "" || before["counters"] == "" {
		t.Fatalf("rows of the live project: %v", before)
	}
	for name, purge := range map[string]func(context.Context, projects.Project) error{
		"items":    engine.Purge,
		"stats":    stats.NewStore(pool).Purge,
		"archive":  archive.New(pool, t.TempDir()).Purge,
		"projects": store.Purge,
	} {
		if err := purge(ctx, p); err == nil || !strings.Contains(err.Error(), "not being deleted") {
			t.Errorf("%s: purge of a live project: %v", name, err)
		}
	}
	if err := volunteers.New(pool).Purge(ctx, volunteers.Tracker); err == nil {
		t.Error("the tracker-wide volunteers purged")
	}
	if after := fingerprints(t, pool, tables, p); !maps.Equal(after, before) {
		t.Errorf("rows of the live project: %v, had %v", after, before)
	}
	if n := dbtest.Count(t, pool, "SELECT count(*) FROM projects WHERE id = $1", p.ID); n != 1 {
		t.Errorf("the live project's row: %d", n)
	}
}

// purgedTables are the tables the purge empties: those with a project_id
// and no foreign key to projects (a row of the others goes with the
// project's).
func purgedTables(t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	var out []string
	for _, table := range projectTables(t, pool) {
		if dbtest.Count(t, pool, `SELECT count(*) FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'f'
			AND confrelid = 'projects'::regclass`, table) == 0 {
			out = append(out, table)
		}
	}
	return out
}

// unbalanced are the rules of the tracker's books that do not hold.
func unbalanced(t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	r, err := books.Tracker(context.Background(), pool)
	if err != nil {
		t.Fatal(err)
	}
	var off []string
	for _, c := range r.Checks {
		if !c.OK {
			off = append(off, c.Name)
		}
	}
	return off
}

// The rows of a project whose purge is over, written late (by what read
// the project before its deletion) or left behind by a tracker that did
// not skip them, are swept by the next purge run: every row of every
// table, and the project's completion partitions, whatever its rows
// were, and a lone row in any one table. The tracker's books, that
// reported them, balance again; another project's rows stay as they
// were. Rows of an id no project ever had are a fault: no purge takes
// them, and the books go on reporting them.
func TestPurgeSweepsRowsOfProjectsGone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	engine := items.NewEngine(pool, quietLog())
	ps := fill(t, pool, store, engine, dbtest.Project(t, pool, "left", ""), dbtest.Project(t, pool, "kept", ""))
	left, kept := ps[0], ps[1]
	tables := projectTables(t, pool)
	keptBefore := fingerprints(t, pool, tables, kept)
	r := NewRunner(quietLog(), pool, Purge(pool, store, engine, archive.New(pool, t.TempDir())))
	purge := func(want string) {
		t.Helper()
		if s, err := r.RunNow(ctx, "purge"); err != nil || s != want {
			t.Fatalf("purge: %q, %v; want %q", s, err, want)
		}
	}

	// The project's row gone and nothing else, as the rows written after
	// a purge are: the books report them.
	dbtest.MustExec(t, pool, "DELETE FROM projects WHERE id = $1", left.ID)
	if off := unbalanced(t, pool); len(off) < 10 {
		t.Fatalf("the books of a tracker left with a gone project's rows: %q unbalanced", off)
	}
	purge("purged 0 projects, swept the rows written late of 1 purged before")
	if rows := dbtest.ProjectRows(t, pool, left.ID); len(rows) > 0 {
		t.Errorf("rows of the gone project left: %v", rows)
	}
	if off := unbalanced(t, pool); len(off) > 0 {
		t.Errorf("unbalanced after the sweep: %q", off)
	}
	if keptAfter := fingerprints(t, pool, tables, kept); !maps.Equal(keptAfter, keptBefore) {
		t.Errorf("the other project's rows: %v, had %v", keptAfter, keptBefore)
	}
	purge("purged 0 projects")

	// A lone row of the gone project in each table, one at a time (taken
	// from the other project); done's completion partitions alone. Not on
	// Citus, which moves no row to another project.
	citus, err := db.Citus(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range purgedTables(t, pool) {
		if citus {
			break
		}
		if table == "done" {
			dbtest.MustExec(t, pool, "SELECT done_partitions_ensure($1, current_date, current_date)", left.ID)
			purge("purged 0 projects, swept the rows written late of 1 purged before")
			if rows := dbtest.ProjectRows(t, pool, left.ID); len(rows) > 0 {
				t.Errorf("done's partitions of the gone project left: %v", rows)
			}
			dbtest.MustExec(t, pool, "SELECT done_partitions_ensure($1, current_date, current_date)", left.ID)
		}
		if n := dbtest.MustExec(t, pool, "UPDATE "+pgx.Identifier{table}.Sanitize()+" SET project_id = $1 WHERE ctid = (SELECT ctid FROM "+
			pgx.Identifier{table}.Sanitize()+" WHERE project_id = $2 LIMIT 1)", left.ID, kept.ID); n != 1 {
			t.Fatalf("%s: no row of the other project to take", table)
		}
		purge("purged 0 projects, swept the rows written late of 1 purged before")
		if rows := dbtest.ProjectRows(t, pool, left.ID); len(rows) > 0 {
			t.Errorf("a row of %s of the gone project left: %v", table, rows)
		}
	}
	if off := unbalanced(t, pool); len(off) > 0 {
		t.Errorf("unbalanced after the sweeps: %q", off)
	}

	// No project ever had this id: its row stays, and is reported.
	never := left.ID + 1000
	dbtest.MustExec(t, pool, "INSERT INTO counters (project_id, name, shard, value) VALUES ($1, 'claims', 0, 1)", never)
	purge("purged 0 projects")
	if n := dbtest.Count(t, pool, "SELECT count(*) FROM counters WHERE project_id = $1", never); n != 1 {
		t.Errorf("the row of no project swept: %d left", n)
	}
	if off := unbalanced(t, pool); !slices.Equal(off, []string{"no row of counters belongs to a project that does not exist (projects)"}) {
		t.Errorf("unbalanced with a row of no project: %q", off)
	}
}
