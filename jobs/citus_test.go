package jobs

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"tracker/archive"
	"tracker/books"
	"tracker/db"
	"tracker/db/dbtest"
	"tracker/items"
	"tracker/projects"
	"tracker/stats"
)

// Every background job does on Citus what it does on plain PostgreSQL:
// each is run once, as `tracker jobs run` runs it (its advisory lock
// taken on the coordinator), over projects with work of every kind, and
// the books balance after. The archive in particular, whose days are
// every project's there (see archive.Archiver.Project): a project's old
// completions go to their files, exactly as they were, and out of the hot
// tables; a day nobody's completions are left in is dropped, one still
// holding another project's stays.
func TestCitusJobs(t *testing.T) {
	dbtest.RequireCitus(t)
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	engine := items.NewEngine(pool, quietLog())
	arc := archive.New(pool, t.TempDir())
	today := time.Now().UTC().Truncate(24 * time.Hour)
	// back moves the project's completions of names starting with prefix
	// days back, into that day's partition. In UTC: Citus takes no
	// function of a row's value that depends on the session's time zone.
	back := func(p projects.Project, prefix string, days int) {
		t.Helper()
		if _, err := pool.Exec(ctx, "SELECT done_partitions_ensure($1, $2::date, $3::date)", p.ID, today.AddDate(0, 0, -days), today); err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `UPDATE done SET done_at = (done_at AT TIME ZONE 'UTC' - make_interval(days => $3)) AT TIME ZONE 'UTC'
			WHERE project_id = $1 AND starts_with(name, $2)`, p.ID, prefix, days); err != nil {
			t.Fatal(err)
		}
	}
	partition := func(day time.Time) bool {
		t.Helper()
		return dbtest.Count(t, pool, "SELECT count(*) FROM pg_class WHERE relname = $1", "done_"+day.Format("20060102")) == 1
	}

	// Archived to files: completions of three and four days ago, and
	// today's, which stay; claims out an hour too long, reclaimed.
	kept := dbtest.Project(t, pool, "kept", "", "archive_after=86400", "archive_mode=files", "reclaim_ttl=60")
	complete(t, store, engine, kept, "three", 20)
	back(kept, "three:", 3)
	complete(t, store, engine, kept, "four", 10)
	back(kept, "four:", 4)
	complete(t, store, engine, kept, "new", 5)
	if _, err := engine.Add(ctx, kept, "todo", strings.NewReader("out:1\nout:2\nout:3")); err != nil {
		t.Fatal(err)
	}
	sum, err := store.Summary(ctx, kept)
	if err != nil {
		t.Fatal(err)
	}
	if h, err := engine.Request(ctx, &projects.Live{Project: kept, Queues: sum.Queues, Summary: sum}, items.ClaimRequest{Downloader: "bob", Version: "1", Max: 3}); err != nil || len(h.Names) != 3 {
		t.Fatalf("claimed %v, %v", h.Names, err)
	}
	if _, err := pool.Exec(ctx, "UPDATE claims SET claimed_at = now() - interval '1 hour' WHERE project_id = $1", kept.ID); err != nil {
		t.Fatal(err)
	}
	// The lines the archive is to keep, oldest first.
	var before []string
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	q := db.Of(tx)
	if err := q.TransactionSetsPropagated(ctx); err != nil {
		t.Fatal(err)
	}
	if err := q.TransactionTimeZoneUTC(ctx); err != nil {
		t.Fatal(err)
	}
	err = db.DonePartitionRecords(ctx, tx, "done", kept.ID, func(line string, _ int64, _ time.Time) error {
		if !strings.Contains(line, `"item" : "new:`) {
			before = append(before, line)
		}
		return nil
	})
	if err != nil || len(before) != 30 {
		t.Fatalf("%d completions to archive, %v", len(before), err)
	}
	tx.Rollback(ctx)

	// Not archived (archive_after 0): its completion of four days ago
	// keeps that day's partition.
	unarchived := dbtest.Project(t, pool, "unarchived", "")
	complete(t, store, engine, unarchived, "four", 1)
	back(unarchived, "four:", 4)

	// Recurring: its items' next visits due.
	recurring := dbtest.Project(t, pool, "recurring", "", "mode=recurring")
	complete(t, store, engine, recurring, "item", 3)
	if _, err := pool.Exec(ctx, "UPDATE revisits SET due_at = now() - interval '1 minute' WHERE project_id = $1", recurring.ID); err != nil {
		t.Fatal(err)
	}

	// Deleted: to be purged from every table.
	doomed := dbtest.Project(t, pool, "doomed", "")
	complete(t, store, engine, doomed, "item", 4)
	if err := store.MarkDeleting(ctx, doomed); err != nil {
		t.Fatal(err)
	}
	tables := projectTables(t, pool)
	if rows := rowsOf(t, pool, tables, doomed); len(rows) < 5 {
		t.Fatalf("the deleted project's rows: %v", rows)
	}

	r := NewRunner(quietLog(), pool,
		Reclaim(store, engine), Revisit(store, engine), Archive(store, arc), Rollup(stats.NewStore(pool)),
		Housekeeping(pool, store, 24*time.Hour), Purge(pool, store, engine, arc))
	summaries := map[string]string{}
	for _, j := range r.Jobs() {
		summary, err := r.RunNow(ctx, j.Name)
		if err != nil {
			t.Errorf("%s: %v", j.Name, err)
		}
		summaries[j.Name] = summary
	}
	t.Logf("summaries: %q", summaries)

	// reclaim
	if n := dbtest.Count(t, pool, "SELECT count(*) FROM claims WHERE project_id = $1", kept.ID); n != 0 || summaries["reclaim"] != "reclaimed 3 items, 0 failed" {
		t.Errorf("reclaim: %d claims left, %q", n, summaries["reclaim"])
	}
	// revisit
	if n := dbtest.Count(t, pool, "SELECT count(*) FROM todo WHERE project_id = $1", recurring.ID); n != 3 || summaries["revisit"] != "3 items due" {
		t.Errorf("revisit: %d items queued, %q", n, summaries["revisit"])
	}
	// archive
	if n := dbtest.Count(t, pool, "SELECT count(*) FROM done WHERE project_id = $1", kept.ID); n != 5 {
		t.Errorf("archive: %d completions left in done, want today's 5", n)
	}
	if n := dbtest.Count(t, pool, "SELECT count(*) FROM done WHERE project_id = $1", unarchived.ID); n != 1 {
		t.Errorf("archive: %d completions of the project not archived, want 1", n)
	}
	if !strings.HasPrefix(summaries["archive"], "archived 30 completions of 2 days") {
		t.Errorf("archive: %q", summaries["archive"])
	}
	arcs, err := arc.List(ctx, kept)
	if err != nil || len(arcs) != 2 || arcs[0].Items != 10 || arcs[1].Items != 20 {
		t.Fatalf("archives %+v, %v", arcs, err)
	}
	var out bytes.Buffer
	if n, err := arc.Export(ctx, &out, kept); err != nil || n != 30 {
		t.Fatalf("exported %d, %v", n, err)
	}
	if lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n"); !slices.Equal(lines, before) {
		t.Errorf("the archive differs from the completions archived:\n%s\nwant\n%s", lines[0], before[0])
	}
	if st, err := engine.Lookup(ctx, &projects.Live{Project: kept}, "three:7"); err != nil || st.Status != items.StatusArchived || st.Archive != arcs[1].Path {
		t.Errorf("lookup of an archived item: %+v, %v", st, err)
	}
	if partition(today.AddDate(0, 0, -3)) || !partition(today.AddDate(0, 0, -4)) {
		t.Errorf("partitions of three and four days ago: %v, %v; want the emptied one dropped, the other kept",
			partition(today.AddDate(0, 0, -3)), partition(today.AddDate(0, 0, -4)))
	}
	// rollup
	if n := dbtest.Count(t, pool, "SELECT count(*) FROM done_tallies"); n != 0 {
		t.Errorf("rollup: %d tallies left", n)
	}
	if n := dbtest.Count(t, pool, "SELECT items FROM downloaders WHERE project_id = $1 AND nick = 'alice'", kept.ID); n != 35 {
		t.Errorf("rollup: alice has %d items, want 35", n)
	}
	// housekeeping
	if !partition(today.AddDate(0, 0, 7)) {
		t.Error("housekeeping: no partition a week ahead")
	}
	// purge
	if rows := rowsOf(t, pool, tables, doomed); len(rows) != 0 {
		t.Errorf("purge: the deleted project's rows left: %v", rows)
	}
	if n := dbtest.Count(t, pool, "SELECT count(*) FROM projects WHERE id = $1", doomed.ID); n != 0 {
		t.Error("purge: the deleted project is left")
	}

	for _, p := range []projects.Project{kept, unarchived, recurring} {
		if r, err := books.Of(ctx, pool, p); err != nil || !r.Balanced {
			t.Errorf("%s's books: %+v, %v", p.Slug, r, err)
		}
	}
	if r, err := books.Tracker(ctx, pool); err != nil || !r.Balanced {
		t.Errorf("the tracker's books: %+v, %v", r, err)
	}
}
