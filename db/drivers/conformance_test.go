package drivers_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
	"tracker/db/citus"
	"tracker/db/dbtest"
	"tracker/db/drivers"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// The driver of a database is Citus's on a Citus coordinator with workers
// (make test-citus) and PostgreSQL's otherwise; Known asks once.
func TestOfTheDatabase(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	want := db.Postgres
	if onCitus(t, pool) {
		want = citus.Driver
	}
	var known drivers.Known
	for range 2 {
		d, err := known.Of(context.Background(), pool)
		if err != nil || d != want {
			t.Fatalf("driver %v (%v), want %s", d, err, want.Name())
		}
	}
}

// Both drivers give the same answers and leave the same rows: the
// conformance suite. On PostgreSQL it runs both (Citus's statements are
// plain SQL, written for Citus's planner); on a Citus database (make
// test-citus) Citus's, which is the one that runs there.
func TestConformance(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	under := []db.Driver{db.Postgres, citus.Driver}
	if onCitus(t, pool) {
		under = []db.Driver{citus.Driver}
	}
	for _, d := range under {
		t.Run(d.Name(), func(t *testing.T) {
			t.Parallel()
			c := &conformance{t: t, d: d, pool: pool, q: db.Of(pool), ctx: context.Background()}
			t.Run("import", c.importAndSeen)
			t.Run("import shuffled", c.importShuffled)
			t.Run("claim and complete", c.claimAndComplete)
			t.Run("move", c.move)
			t.Run("books", c.books)
			t.Run("prune", c.prune)
		})
	}
}

func onCitus(t *testing.T, pool *pgxpool.Pool) bool {
	on, err := db.Citus(context.Background(), pool)
	if err != nil {
		t.Fatal(err)
	}
	return on
}

type conformance struct {
	t    *testing.T
	d    db.Driver
	pool *pgxpool.Pool
	q    *db.Queries
	ctx  context.Context
}

// project makes a project of its own for a step.
func (c *conformance) project(t *testing.T, slug string) int32 {
	return dbtest.Project(t, c.pool, c.d.Name()+"-"+slug, slug).ID
}

// add queues names in queue todo as an import does.
func (c *conformance) add(t *testing.T, project int32, arg db.TodoAddUnseenParams) db.TodoAddUnseenRow {
	t.Helper()
	block, err := c.q.ItemIDBlockNext(c.ctx)
	if err != nil {
		t.Fatal(err)
	}
	arg.ProjectID, arg.IDBlock, arg.Queue, arg.Source = project, block, "todo", "test"
	arg.Queues = []string{"todo"}
	var row db.TodoAddUnseenRow
	err = db.WithTx(c.ctx, c.pool, func(q *db.Queries) error {
		row, err = c.d.TodoAddUnseen(c.ctx, q, arg)
		return err
	})
	if err != nil {
		t.Fatalf("TodoAddUnseen: %v", err)
	}
	return row
}

func (c *conformance) queued(t *testing.T, project int32, queue string) []string {
	t.Helper()
	rows, err := c.pool.Query(c.ctx, "SELECT name FROM todo WHERE project_id = $1 AND queue = $2 ORDER BY id", project, queue)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// underSeenIDs counts the queued items whose ids are their names' in
// seen (read apart: on Citus seen is spread by hash, todo by project).
func (c *conformance) underSeenIDs(t *testing.T, project int32) int64 {
	t.Helper()
	rows, err := c.pool.Query(c.ctx, "SELECT id FROM seen WHERE project_id = $1", project)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatal(err)
	}
	return dbtest.Count(t, c.pool, "SELECT count(*) FROM todo WHERE project_id = $1 AND id = ANY($2)", project, ids)
}

// An import queues the names the project never saw, once each; seen keeps
// their ids, which SeenIDsOfNames finds; skipping the seen check queues a
// name seen before and out of every queue again.
func (c *conformance) importAndSeen(t *testing.T) {
	p := c.project(t, "import")
	if row := c.add(t, p, db.TodoAddUnseenParams{Names: []string{"a", "b", "c", "b"}}); row.Queued != 3 || row.Again != 0 {
		t.Fatalf("first import: %+v, want 3 queued", row)
	}
	if row := c.add(t, p, db.TodoAddUnseenParams{Names: []string{"b", "c", "d"}}); row.Queued != 1 {
		t.Fatalf("second import: %+v, want 1 queued", row)
	}
	if got := c.queued(t, p, "todo"); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
		t.Fatalf("queued %v", got)
	}
	ids, err := c.d.SeenIDsOfNames(c.ctx, c.q, db.SeenIDsOfNamesParams{ProjectID: p, Names: []string{"a", "d", "zz"}})
	if err != nil {
		t.Fatal(err)
	}
	want := dbtest.Count(t, c.pool, "SELECT count(*) FROM todo WHERE project_id = $1 AND name IN ('a', 'd') AND id = ANY($2)", p, ids)
	if len(ids) != 2 || want != 2 {
		t.Fatalf("ids of a, d, zz: %v (%d of them a's and d's)", ids, want)
	}

	dbtest.MustExec(t, c.pool, "DELETE FROM todo WHERE project_id = $1 AND name = 'a'", p)
	if row := c.add(t, p, db.TodoAddUnseenParams{Names: []string{"a", "b"}, SkipSeen: true}); row.Queued != 1 || row.Again != 1 {
		t.Fatalf("skipping the seen check: %+v, want a queued again (b is queued)", row)
	}
	if n := c.underSeenIDs(t, p); n != 4 {
		t.Fatalf("%d queued items under their seen ids, want 4", n)
	}
}

// A shuffled import queues each new name under the id seen drew for it.
func (c *conformance) importShuffled(t *testing.T) {
	p := c.project(t, "shuffled")
	names := []string{"n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8"}
	if row := c.add(t, p, db.TodoAddUnseenParams{Names: names, Shuffle: true}); row.Queued != 8 {
		t.Fatalf("shuffled import: %+v", row)
	}
	if n := c.underSeenIDs(t, p); n != 8 {
		t.Fatalf("%d of 8 queued items under their seen ids", n)
	}
}

// A claim takes the head of the queue for each slot; a completion of a
// claimed item and of one back in its queue (held by nobody: found through
// seen) completes both for their holder, and the fold counts them for it.
func (c *conformance) claimAndComplete(t *testing.T) {
	p := c.project(t, "claim")
	c.add(t, p, db.TodoAddUnseenParams{Names: []string{"x1", "x2", "x3", "x4"}})
	var claimed []db.ClaimsTakeSlotsRow
	err := db.WithTx(c.ctx, c.pool, func(q *db.Queries) (err error) {
		claimed, err = c.d.ClaimsTakeSlots(c.ctx, q, db.ClaimsTakeSlotsParams{
			Nicks: []string{"w", "w"}, Versions: []string{"v", "v"}, Ips: []string{"", ""}, Requests: []int32{1, 2},
			Carried: []int64{0, 0}, ProjectID: p, Queue: "todo", ItemType: "", Max: 2, Budget: 1 << 20})
		return err
	})
	if err != nil {
		t.Fatalf("ClaimsTakeSlots: %v", err)
	}
	var names []string
	for _, r := range claimed {
		names = append(names, r.Name)
	}
	if !slices.Equal(names, []string{"x1", "x2"}) {
		t.Fatalf("claimed %v, want x1 x2", names)
	}
	if got := c.queued(t, p, "todo"); !slices.Equal(got, []string{"x3", "x4"}) {
		t.Fatalf("left queued %v", got)
	}

	// x3 was w's before its claim ran out: back in its queue, w's still.
	dbtest.MustExec(t, c.pool, "UPDATE todo SET last_downloader = 'w' WHERE project_id = $1 AND name = 'x3'", p)
	var done []db.DoneRecordBatchRow
	err = db.WithTx(c.ctx, c.pool, func(q *db.Queries) (err error) {
		done, err = c.d.DoneRecordBatch(c.ctx, q, db.DoneRecordBatchParams{
			Requests:  []db.DoneRequest{{Downloader: "w", Version: "v", Bytes: 10, Domains: []byte(`{}`), Names: []string{"x1", "x3"}}},
			ProjectID: p, Queues: []string{"todo"}, Types: []string{""}, LogNames: 5})
		return err
	})
	if err != nil {
		t.Fatalf("DoneRecordBatch: %v", err)
	}
	if len(done) != 1 || done[0].Completed != 2 {
		t.Fatalf("completed %+v, want x1 (claimed) and x3 (queued)", done)
	}
	if got := c.queued(t, p, "todo"); !slices.Equal(got, []string{"x4"}) {
		t.Fatalf("left queued %v", got)
	}
	if n := dbtest.Count(t, c.pool, "SELECT count(*) FROM done WHERE project_id = $1", p); n != 2 {
		t.Fatalf("%d completions", n)
	}

	n, err := c.d.DoneTalliesFold(c.ctx, c.q, db.DoneTalliesFoldParams{ProjectID: p, Max: 100, NextSeq: 1 << 62, DomainsKept: 10, FeedKept: 5})
	if err != nil || n != 1 {
		t.Fatalf("fold: %d tallies (%v), want 1", n, err)
	}
	if items := dbtest.Count(t, c.pool, "SELECT coalesce(sum(items), 0) FROM downloaders WHERE project_id = $1 AND nick = 'w'", p); items != 2 {
		t.Fatalf("w's total: %d items, want 2", items)
	}
}

// A move by prefix and a move of picked items take what they name, and
// drop it when the queue to is empty.
func (c *conformance) move(t *testing.T) {
	p := c.project(t, "move")
	c.add(t, p, db.TodoAddUnseenParams{Names: []string{"keep:1", "go:1", "go:2", "pick:1", "pick:2"}})
	err := db.WithTx(c.ctx, c.pool, func(q *db.Queries) error {
		n, err := c.d.TodoMove(c.ctx, q, db.TodoMoveParams{ProjectID: p, FromQueue: "todo", ToQueue: "later",
			Prefix: "go:", Max: 100, Queues: []string{"todo", "later"}, Types: []string{""}})
		if err != nil || n != 2 {
			t.Errorf("TodoMove: %d (%v), want 2", n, err)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.queued(t, p, "later"); !slices.Equal(got, []string{"go:1", "go:2"}) {
		t.Fatalf("moved %v", got)
	}
	ids, err := c.d.SeenIDsOfNames(c.ctx, c.q, db.SeenIDsOfNamesParams{ProjectID: p, Names: []string{"pick:1", "pick:2"}})
	if err != nil {
		t.Fatal(err)
	}
	err = db.WithTx(c.ctx, c.pool, func(q *db.Queries) error {
		n, err := c.d.TodoMoveItems(c.ctx, q, db.TodoMoveItemsParams{ProjectID: p, FromQueue: "todo", ToQueue: "",
			IDs: ids, Names: []string{"pick:1", "pick:2"}, Queues: []string{"todo", "later"}, Types: []string{""}})
		if err != nil || n != 2 {
			t.Errorf("TodoMoveItems: %d (%v), want 2", n, err)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.queued(t, p, "todo"); !slices.Equal(got, []string{"keep:1"}) {
		t.Fatalf("left %v", got)
	}
}

// The books' statements read the same: the rows of projects gone, and
// the items seen but in no table of a state.
func (c *conformance) books(t *testing.T) {
	p := c.project(t, "books")
	c.add(t, p, db.TodoAddUnseenParams{Names: []string{"s1", "s2", "s3"}})
	dbtest.MustExec(t, c.pool, "DELETE FROM todo WHERE project_id = $1 AND name = 's2'", p)
	n, err := c.d.BooksSeenElsewhereCount(c.ctx, c.q, p)
	if err != nil || n != 1 {
		t.Fatalf("seen and nowhere: %d (%v), want 1", n, err)
	}
	rows, err := c.d.BooksOrphans(c.ctx, c.q)
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string]bool{}
	for _, r := range rows {
		tables[r.TableName] = true
	}
	for _, table := range []string{"todo", "seen", "done", "claims", "blocks", "volunteer_marks"} {
		if !tables[table] {
			t.Errorf("BooksOrphans has no row for %s: %v", table, rows)
		}
	}
}

// The prunes keep what they must: an expiry of an item in the error queue
// and the newest of the feed.
func (c *conformance) prune(t *testing.T) {
	p := c.project(t, "prune")
	c.add(t, p, db.TodoAddUnseenParams{Names: []string{"e1", "e2"}})
	dbtest.MustExec(t, c.pool, "UPDATE todo SET queue = 'error' WHERE project_id = $1 AND name = 'e1'", p)
	dbtest.MustExec(t, c.pool, `INSERT INTO claim_expiries (project_id, id, downloader, claimed_at, expired_at)
		SELECT project_id, id, 'w', now() - interval '41 days', now() - interval '40 days' FROM todo WHERE project_id = $1`, p)
	if _, err := c.d.ClaimExpiriesPrune(c.ctx, c.q, db.ClaimExpiriesPruneParams{Keep: 30 * 24 * time.Hour, Max: 100}); err != nil {
		t.Fatal(err)
	}
	if n := dbtest.Count(t, c.pool, "SELECT count(*) FROM claim_expiries e JOIN todo t ON t.project_id = e.project_id AND t.id = e.id WHERE e.project_id = $1 AND t.name = 'e1'", p); n != 1 {
		t.Fatalf("the error queue's expiry: %d left, want 1", n)
	}
	if n := dbtest.Count(t, c.pool, "SELECT count(*) FROM claim_expiries WHERE project_id = $1", p); n != 1 {
		t.Fatalf("%d expiries left, want the error queue's only", n)
	}

	for i := range 4 {
		dbtest.MustExec(t, c.pool, `INSERT INTO feed (project_id, at, downloader, items, bytes, item, version, domains, user_agent, names)
			VALUES ($1, now() - make_interval(secs => $2), 'w', 1, 1, 'i', 'v', '{}', '', '{}')`, p, i)
	}
	if _, err := c.d.FeedPrune(c.ctx, c.q, 2); err != nil {
		t.Fatal(err)
	}
	if n := dbtest.Count(t, c.pool, "SELECT count(*) FROM feed WHERE project_id = $1", p); n != 2 {
		t.Fatalf("%d feed entries kept, want 2", n)
	}
}
