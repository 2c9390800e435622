package jobs

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/archive"
	"tracker/db"
	"tracker/db/dbtest"
	"tracker/items"
	"tracker/projects"
)

// Each job does its work project by project: a project whose step fails is
// reported, in the run's record and the log, and every other project's
// work is done in the same run. The broken project is named "aaa", so the
// jobs (which take the projects by slug) meet it first.

// fault makes every INSERT and UPDATE of the project's rows in table
// fail, as a broken disk or a bad row would: a check constraint none of
// them meets, not checked against the rows already there. (A check, not a
// trigger: Citus refuses triggers on its distributed and reference
// tables, and these tests run there too.)
func fault(t *testing.T, pool *pgxpool.Pool, table string, p projects.Project) {
	t.Helper()
	dbtest.MustExec(t, pool, fmt.Sprintf(`ALTER TABLE %s ADD CONSTRAINT injected_fault CHECK (project_id <> %d) NOT VALID`, table, p.ID))
}

// faultDeletes makes every DELETE of the project's rows in table fail.
func faultDeletes(t *testing.T, pool *pgxpool.Pool, table string, p projects.Project) {
	t.Helper()
	dbtest.MustExec(t, pool, `CREATE OR REPLACE FUNCTION injected_fault() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'injected_fault on %', TG_TABLE_NAME; END $$`)
	dbtest.MustExec(t, pool, fmt.Sprintf(`CREATE TRIGGER injected_fault_%s BEFORE DELETE ON %s FOR EACH ROW WHEN (OLD.project_id = %d)
		EXECUTE FUNCTION injected_fault()`, table, table, p.ID))
}

// logged is a logger whose lines the test reads.
type logged struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logged) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logged) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// runFailing runs the job once with a runner logging to a buffer, and
// checks that the run is recorded as failed for the broken project alone,
// with the fault, and logged with the project.
func runFailing(t *testing.T, pool *pgxpool.Pool, job Job, fault, broken string, healthy ...string) string {
	t.Helper()
	ctx := context.Background()
	var log logged
	r := NewRunner(slog.New(slog.NewTextHandler(&log, nil)), pool, job)
	summary, err := r.RunNow(ctx, job.Name)
	want := "1 project failed: " + broken + ": "
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), fault) {
		t.Fatalf("run: %v; want an error with %q", err, want)
	}
	row, err := db.Of(pool).JobGet(ctx, job.Name)
	if err != nil {
		t.Fatal(err)
	}
	if row.LastOutcome != OutcomeError || !strings.Contains(row.LastError, want) || row.LastSummary != summary {
		t.Fatalf("recorded %q %q %q; want the failure of %s", row.LastOutcome, row.LastError, row.LastSummary, broken)
	}
	for _, h := range healthy {
		if strings.Contains(row.LastError, h+": ") {
			t.Fatalf("recorded error %q names %s", row.LastError, h)
		}
	}
	if l := log.String(); !strings.Contains(l, "project="+broken) || !strings.Contains(l, "job="+job.Name) {
		t.Fatalf("log %q does not name the project", l)
	}
	return summary
}

// complete queues, hands out and completes n items of the project named
// prefix:0…, as warriors would, and returns their names.
func complete(t *testing.T, store *projects.Store, engine *items.Engine, p projects.Project, prefix string, n int) []string {
	t.Helper()
	ctx := context.Background()
	var names []string
	for i := range n {
		names = append(names, fmt.Sprintf("%s:%d", prefix, i))
	}
	if _, err := engine.Add(ctx, p, "todo", strings.NewReader(strings.Join(names, "\n"))); err != nil {
		t.Fatal(err)
	}
	sum, err := store.Summary(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	h, err := engine.Request(ctx, &projects.Live{Project: p, Queues: sum.Queues, Summary: sum}, items.ClaimRequest{Downloader: "alice", Version: "1", Max: n})
	if err != nil || len(h.Names) != n {
		t.Fatalf("claimed %v, %v", h.Names, err)
	}
	if _, err := engine.Complete(ctx, p, items.Completion{Downloader: "alice", Version: "1", Items: h.Names, Bytes: map[string]int64{"data": 100}}); err != nil {
		t.Fatal(err)
	}
	return names
}

// A project whose reclaim_ttl was stored out of range before the ranges
// existed is reclaimed with the clamped value, a project whose claims
// cannot go back to their queue is reported, and the project after both
// is reclaimed in the same run.
func TestReclaimGoesOnPastAFailingProject(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	outOfRange := dbtest.Project(t, pool, "aaa", "")
	broken := dbtest.Project(t, pool, "abc", "", "reclaim_ttl=60")
	healthy := dbtest.Project(t, pool, "bbb", "", "reclaim_ttl=3600")
	// Eleven years old: expired under the clamped TTL of ten years.
	claimed(t, pool, outOfRange, 10, 11*366*24*time.Hour)
	claimed(t, pool, broken, 10, 2*time.Hour)
	claimed(t, pool, healthy, 10, 2*time.Hour)
	// Stored past validation, as before the ranges; and a claim handed
	// out a thousand times, whose claim count times the TTL is far past
	// the range of intervals.
	if _, err := pool.Exec(ctx, `UPDATE projects SET config = config || '{"reclaim_ttl": 5000000000000}'::jsonb WHERE id = $1`, outOfRange.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE claims SET claim_count = 1000 WHERE project_id = $1 AND id = 1`, outOfRange.ID); err != nil {
		t.Fatal(err)
	}
	fault(t, pool, "todo", broken)

	summary := runFailing(t, pool, Reclaim(store, items.NewEngine(pool, quietLog())), "injected_fault", "abc", "aaa", "bbb")
	if summary != "reclaimed 19 items, 0 failed" {
		t.Fatalf("summary %q", summary)
	}
	for _, c := range []struct {
		p             projects.Project
		claims, todos int64
	}{{outOfRange, 1, 9}, {broken, 10, 0}, {healthy, 0, 10}} {
		claims := dbtest.Count(t, pool, "SELECT count(*) FROM claims WHERE project_id = $1", c.p.ID)
		todos := dbtest.Count(t, pool, "SELECT count(*) FROM todo WHERE project_id = $1", c.p.ID)
		if claims != c.claims || todos != c.todos {
			t.Errorf("%s: %d claims, %d queued; want %d and %d", c.p.Slug, claims, todos, c.claims, c.todos)
		}
	}
}

// A recurring project whose due items cannot be queued is reported, and
// the next project's due items are queued in the same run.
func TestRevisitGoesOnPastAFailingProject(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	engine := items.NewEngine(pool, quietLog())
	broken := dbtest.Project(t, pool, "aaa", "", "mode=recurring")
	healthy := dbtest.Project(t, pool, "bbb", "", "mode=recurring")
	for _, p := range []projects.Project{broken, healthy} {
		complete(t, store, engine, p, "item", 3)
	}
	dbtest.Due(t, pool, dbtest.Revisits(broken.ID), dbtest.Revisits(healthy.ID))
	fault(t, pool, "todo", broken)

	if summary := runFailing(t, pool, Revisit(store, engine), "injected_fault", "aaa", "bbb"); summary != "3 items due" {
		t.Fatalf("summary %q", summary)
	}
	for _, c := range []struct {
		p                projects.Project
		revisits, queued int64
	}{{broken, 3, 0}, {healthy, 0, 3}} {
		revisits := dbtest.Count(t, pool, "SELECT count(*) FROM revisits WHERE project_id = $1", c.p.ID)
		queued := dbtest.Count(t, pool, "SELECT count(*) FROM todo WHERE project_id = $1", c.p.ID)
		if revisits != c.revisits || queued != c.queued {
			t.Errorf("%s: %d scheduled, %d queued; want %d and %d", c.p.Slug, revisits, queued, c.revisits, c.queued)
		}
	}
}

// A project whose days cannot be archived is reported, and the next
// project's days are archived in the same run.
func TestArchiveGoesOnPastAFailingProject(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	engine := items.NewEngine(pool, quietLog())
	broken := dbtest.Project(t, pool, "aaa", "", "archive_after=86400", "archive_mode=discard")
	healthy := dbtest.Project(t, pool, "bbb", "", "archive_after=86400", "archive_mode=discard")
	for _, p := range []projects.Project{broken, healthy} {
		complete(t, store, engine, p, "item", 4)
		// Completed three days ago, in that day's partition.
		dbtest.Age(t, pool, 3*24*time.Hour, dbtest.Completions(p.ID))
	}
	fault(t, pool, "archives", broken)

	summary := runFailing(t, pool, Archive(store, archive.New(pool, t.TempDir())), "injected_fault", "aaa", "bbb")
	if !strings.HasPrefix(summary, "archived 4 completions of ") {
		t.Fatalf("summary %q", summary)
	}
	for _, c := range []struct {
		p    projects.Project
		left int64
	}{{broken, 4}, {healthy, 0}} {
		if n := dbtest.Count(t, pool, "SELECT count(*) FROM done WHERE project_id = $1", c.p.ID); n != c.left {
			t.Errorf("%s: %d completions left in the hot tables, want %d", c.p.Slug, n, c.left)
		}
	}
}

// A deleted project whose rows cannot be removed is reported (and kept for
// the next run), and the next deleted project is purged in the same run.
func TestPurgeGoesOnPastAFailingProject(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	engine := items.NewEngine(pool, quietLog())
	broken := dbtest.Project(t, pool, "aaa", "")
	healthy := dbtest.Project(t, pool, "bbb", "")
	for _, p := range []projects.Project{broken, healthy} {
		complete(t, store, engine, p, "item", 3)
		if err := store.MarkDeleting(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	faultDeletes(t, pool, "seen", broken)

	if summary := runFailing(t, pool, Purge(pool, store, engine, archive.New(pool, t.TempDir())), "injected_fault", "aaa", "bbb"); summary != "purged 1 projects" {
		t.Fatalf("summary %q", summary)
	}
	for _, c := range []struct {
		p    projects.Project
		left int64
	}{{broken, 1}, {healthy, 0}} {
		if n := dbtest.Count(t, pool, "SELECT count(*) FROM projects WHERE id = $1", c.p.ID); n != c.left {
			t.Errorf("%s: %d projects rows, want %d", c.p.Slug, n, c.left)
		}
	}
	if n := dbtest.Count(t, pool, "SELECT count(*) FROM seen WHERE project_id = $1", healthy.ID); n != 0 {
		t.Errorf("bbb: %d names left", n)
	}
}

// dropDay drops the project's completion partition of the day of at.
func dropDay(t *testing.T, pool *pgxpool.Pool, p projects.Project, at time.Time) {
	t.Helper()
	name := fmt.Sprintf("done_p%d_%s", p.ID, at.UTC().Format("20060102"))
	if _, err := pool.Exec(context.Background(), "DROP TABLE "+name); err != nil {
		t.Fatal(err)
	}
}

func partitionExists(t *testing.T, pool *pgxpool.Pool, p projects.Project, at time.Time) bool {
	t.Helper()
	return dbtest.Count(t, pool, "SELECT count(*) FROM pg_class WHERE relname = $1", dayPartition(t, pool, p, at)) == 1
}

// breakDay makes the project's partition of the day of at impossible to
// create: a completion of that day sits in its default partition, which
// PostgreSQL refuses to split while it holds it, and the default
// partition refuses to give it up.
func breakDay(t *testing.T, pool *pgxpool.Pool, p projects.Project, at time.Time) {
	t.Helper()
	strayCompletion(t, pool, p, at)
	dbtest.MustExec(t, pool, `CREATE FUNCTION keep_completions() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'the default partition keeps its completions'; END $$`)
	dbtest.MustExec(t, pool, fmt.Sprintf(`CREATE TRIGGER keep_completions BEFORE DELETE ON done_p%d_default
		FOR EACH ROW EXECUTE FUNCTION keep_completions()`, p.ID))
}

// strayCompletion writes a completion of the project at at, in its
// default partition when the day has none.
func strayCompletion(t *testing.T, pool *pgxpool.Pool, p projects.Project, at time.Time) {
	t.Helper()
	dbtest.MustExec(t, pool, `INSERT INTO done (project_id, id, name, downloader, version, bytes, domains, claimed_at, claim_count, done_at)
		VALUES ($1, 1, 'item:0', 'alice', '1', 0, '{}', $2, 1, $2)`, p.ID, at)
}

// A project whose partitions cannot be made is reported, and the next
// project's are made.
func TestEnsurePartitionsGoesOnPastAFailingProject(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	broken := dbtest.Project(t, pool, "aaa", "")
	healthy := dbtest.Project(t, pool, "bbb", "")
	later := time.Now().AddDate(0, 0, 30)
	breakDay(t, pool, broken, later)

	err := EnsurePartitions(ctx, store, later)
	if err == nil || !strings.HasPrefix(err.Error(), "1 project failed: aaa: ") {
		t.Fatalf("EnsurePartitions: %v; want aaa's failure", err)
	}
	if !partitionExists(t, pool, healthy, later) {
		t.Fatal("bbb's partitions were not made")
	}
}

// Housekeeping makes the partitions of every project but the broken one,
// reports it, and does its other steps all the same.
func TestHousekeepingGoesOnPastAFailingProject(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	broken := dbtest.Project(t, pool, "aaa", "")
	healthy := dbtest.Project(t, pool, "bbb", "")
	day := time.Now().AddDate(0, 0, 6)
	for _, p := range []projects.Project{broken, healthy} {
		dropDay(t, pool, p, day)
	}
	breakDay(t, pool, broken, day)
	dbtest.MustExec(t, pool, `INSERT INTO backfeed_minutes (project_id, shard, minute, items)
		VALUES ($1, '', date_trunc('minute', now()), 1)`, healthy.ID)
	dbtest.Age(t, pool, 49*time.Hour, dbtest.BackfeedMinutes(healthy.ID, ""))

	summary := runFailing(t, pool, Housekeeping(pool, store, 24*time.Hour), "keeps its completions", "aaa", "bbb")
	if !strings.HasPrefix(summary, "partitions ensured but for aaa, ") {
		t.Fatalf("summary %q", summary)
	}
	if !partitionExists(t, pool, healthy, day) {
		t.Fatal("bbb's partition was not made")
	}
	if n := dbtest.Count(t, pool, "SELECT count(*) FROM backfeed_minutes"); n != 0 {
		t.Fatalf("%d old backfeed minutes left: housekeeping stopped at the failing project", n)
	}
}
