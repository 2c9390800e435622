package db_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
	"tracker/db/dbtest"
)

// explainer runs every statement given to it as EXPLAIN and keeps the plan,
// so a test reads the plans of exactly the generated queries.
type explainer struct {
	conn *pgxpool.Conn
	// analyze runs the statement (EXPLAIN ANALYZE, in a transaction
	// rolled back after), so the plan counts what each node did.
	analyze bool
	plan    string
	err     error
	// runs counts the statements explained: a check whose call never
	// reached the database must not read the plan of the check before.
	runs int
}

var errExplained = errors.New("explained, not run")

// explain prepares the statement and explains its execution with args, so
// the plan is the one plan_cache_mode chooses (an EXPLAIN of the statement
// itself is always planned for the values given).
func (e *explainer) explain(ctx context.Context, sql string, args ...any) {
	e.runs++
	sd, err := e.conn.Conn().Prepare(ctx, "explained", sql)
	if err != nil {
		e.err = err
		return
	}
	defer e.conn.Conn().Deallocate(context.Background(), "explained")
	// The values go in as literals (an EXPLAIN takes no parameters), each
	// in the text form of its parameter's type: a row type's too.
	params, literals := make([]string, len(args)), make([]any, len(args))
	for i, arg := range args {
		params[i] = fmt.Sprintf("$%d", i+1)
		// Appended to a buffer: a nil one back is NULL, an empty one ''.
		text, err := e.conn.Conn().TypeMap().Encode(sd.ParamOIDs[i], pgtype.TextFormatCode, arg, make([]byte, 0, 64))
		if err != nil {
			e.err = err
			return
		}
		if text != nil {
			literals[i] = string(text)
		}
	}
	explain := "EXPLAIN"
	if e.analyze {
		explain = "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF)"
		if _, err := e.conn.Exec(ctx, "BEGIN"); err != nil {
			e.err = err
			return
		}
		defer e.conn.Exec(ctx, "ROLLBACK")
	}
	rows, err := e.conn.Query(ctx, explain+" EXECUTE explained("+strings.Join(params, ", ")+")",
		append([]any{pgx.QueryExecModeSimpleProtocol}, literals...)...)
	if err != nil {
		e.err = err
		return
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	e.plan, e.err = strings.Join(lines, "\n"), err
}

func (e *explainer) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	e.explain(ctx, sql, args...)
	return pgconn.CommandTag{}, errExplained
}

func (e *explainer) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	e.explain(ctx, sql, args...)
	return nil, errExplained
}

func (e *explainer) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	e.explain(ctx, sql, args...)
	return errRow{}
}

type errRow struct{}

func (errRow) Scan(...any) error { return errExplained }

// The hot statements use their indexes, whatever the statistics say and
// whether the plan is custom or generic (pgx prepares statements, and after
// five runs PostgreSQL may settle on a generic plan). A claim must never
// read the queue from its start or sort it; a completion must find claims
// by key, even when ANALYZE last saw the claims table empty.
func TestHotQueryPlans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	q := db.New(pool)
	// First with the tables as a fresh install has them, never analyzed:
	// a project's first import and its first hours of work run on the
	// plans made then, until autovacuum's first ANALYZE.
	for _, table := range []string{"todo", "claims", "seen", "sites", "item_scores", "item_params"} {
		if _, err := pool.Exec(ctx, "ALTER TABLE "+table+" SET (autovacuum_enabled = off)"); err != nil {
			t.Fatal(err)
		}
	}
	// A project that keeps sites: items are filed by its configuration.
	p, err := q.ProjectInsert(ctx, db.ProjectInsertParams{Slug: "plans", Config: []byte(`{"site_key":"host"}`)})
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 20_000)
	for i := range names {
		names[i] = fmt.Sprintf("item:%d", i)
	}
	if _, err := q.TodoAddUnseen(ctx, db.TodoAddUnseenParams{ProjectID: p.ID, Queue: "todo", Names: names}); err != nil {
		t.Fatal(err)
	}
	// As many items with a site, over 2,000 sites.
	siteNames := make([]string, 2_000)
	for i := range siteNames {
		siteNames[i] = fmt.Sprintf("s%d.example", i)
	}
	if err := q.SitesAdd(ctx, db.SitesAddParams{ProjectID: p.ID, Names: siteNames}); err != nil {
		t.Fatal(err)
	}
	siteRows, err := q.SitesIDs(ctx, db.SitesIDsParams{ProjectID: p.ID, Names: siteNames})
	if err != nil {
		t.Fatal(err)
	}
	urls, urlSites := make([]string, 20_000), make([]int32, 20_000)
	for i := range urls {
		urls[i] = fmt.Sprintf("https://%s/%d", siteRows[i%len(siteRows)].Name, i)
		urlSites[i] = siteRows[i%len(siteRows)].ID
	}
	if _, err := q.TodoAddUnseen(ctx, db.TodoAddUnseenParams{ProjectID: p.ID, Queue: "todo", Names: urls, Sites: urlSites}); err != nil {
		t.Fatal(err)
	}
	// Scores and parameters of as many items: read by key, never whole.
	for _, sql := range []string{
		`INSERT INTO item_scores SELECT $1, g, 0.8 FROM generate_series(1, 20000) g`,
		`INSERT INTO item_params SELECT $1, g, '{"n": 1}' FROM generate_series(1, 20000) g`,
	} {
		if _, err := pool.Exec(ctx, sql, p.ID); err != nil {
			t.Fatal(err)
		}
	}

	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	ex := &explainer{conn: conn}
	eq := db.New(ex)

	type check struct {
		name      string
		run       func()
		want      []string // each must appear in the plan
		forbidden []string
	}
	checks := []check{
		{"ClaimsTakeSlots", func() {
			eq.ClaimsTakeSlots(ctx, slots(p.ID, 100, 1))
		}, []string{"todo_pkey", "item_params_pkey"}, []string{"Seq Scan on todo", "Sort Key: t.id", "Seq Scan on claims", "Seq Scan on item_params"}},
		{"DoneRecordBatch", func() {
			eq.DoneRecordBatch(ctx, db.DoneRecordBatchParams{ProjectID: p.ID, Requests: []db.DoneRequest{
				{Downloader: "a", Bytes: 1, Domains: []byte("{}"), Names: []string{"item:1"}},
				{Downloader: "b", Bytes: 2, Domains: []byte("{}"), Names: []string{"item:2"}}},
				Queues: []string{"todo", "downloader:a"}, Types: []string{""}})
		}, []string{"claims_pkey", "Index Cond: ((hash = ANY", "seen_pkey", "seen_item", "todo_pkey"},
			[]string{"Seq Scan on claims", "Filter: (hash", "Seq Scan on seen", "Seq Scan on todo"}},
		{"DoneRecordBatch recurring", func() {
			eq.DoneRecordBatch(ctx, db.DoneRecordBatchParams{ProjectID: p.ID, Requests: []db.DoneRequest{
				{Downloader: "a", Bytes: 1, Domains: []byte("{}"), Names: []string{"item:1"}, Factors: []byte(`{"item:1": 0.5}`)}},
				Queues: []string{"todo"}, Types: []string{""},
				Recurring: true, RetireBelow: 0.005, RevisitAfter: time.Minute})
		}, []string{"item_scores_pkey"}, []string{"Seq Scan on item_scores", "Seq Scan on claims"}},
		{"ClaimsReclaim", func() {
			eq.ClaimsReclaim(ctx, db.ClaimsReclaimParams{ProjectID: p.ID, Ttl: time.Minute, RefusedTypes: []string{}, Max: 5, Downloader: "a"})
		}, []string{"claims_claimed_at"}, []string{"Seq Scan on claims"}},
		{"ClaimsRelease", func() {
			eq.ClaimsRelease(ctx, db.ClaimsReleaseParams{ProjectID: p.ID, Names: []string{"item:1"}})
		}, []string{"claims_pkey", "Index Cond: ((hash = ANY"}, []string{"Seq Scan on claims", "Filter: (hash"}},
		{"ClaimsCountByDownloader", func() {
			eq.ClaimsCountByDownloader(ctx, db.ClaimsCountByDownloaderParams{ProjectID: p.ID, Downloader: "a"})
		}, []string{"claims_downloader"}, []string{"Seq Scan"}},
		{"ClaimGet", func() { eq.ClaimGet(ctx, db.ClaimGetParams{ProjectID: p.ID, Name: "item:1"}) }, []string{"claims_pkey"}, []string{"Seq Scan"}},
		{"SeenFind", func() { eq.SeenFind(ctx, db.SeenFindParams{ProjectID: p.ID, Name: "item:1"}) }, []string{"seen_pkey", "seen_item"}, []string{"Seq Scan"}},
		{"ClaimOfItem", func() {
			eq.ClaimOfItem(ctx, db.ClaimOfItemParams{ProjectID: p.ID, Hash: make([]byte, 16), ID: 5})
		}, []string{"claims_pkey"}, []string{"Seq Scan"}},
		{"SitesDue", func() {
			eq.SitesDue(ctx, db.SitesDueParams{ProjectID: p.ID, Affinity: true, Nicks: []string{"a"}, Max: 10})
		}, []string{"sites_due"}, []string{"Seq Scan on sites", "Sort"}},
		{"SitesTake", func() {
			eq.SitesTake(ctx, db.SitesTakeParams{ProjectID: p.ID, Takes: []db.SiteTake{
				{Site: siteRows[0].ID, Items: 1, Slot: 1, Downloader: "a"}, {Site: siteRows[1].ID, Items: 2, Slot: 2, Downloader: "b"}},
				Queues: []string{"todo", "backfeed"}, Interval: 5 * time.Second, SiteLimit: 2})
		}, []string{"todo_sites", "sites_pkey", "item_params_pkey"}, []string{"Seq Scan on todo", "Seq Scan on sites", "Seq Scan on claims", "Seq Scan on item_params"}},
		{"TodoGet", func() {
			eq.TodoGet(ctx, db.TodoGetParams{ProjectID: p.ID, Queues: []string{"todo", "backfeed"}, ID: 5})
		}, []string{"todo_pkey"}, []string{"Seq Scan"}},
	}

	run := func(state string) {
		for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
			if _, err := conn.Exec(ctx, "SET plan_cache_mode = "+mode); err != nil {
				t.Fatal(err)
			}
			for _, c := range checks {
				ex.plan, ex.err, ex.runs = "", nil, 0
				// The call's own error is always errExplained: what was
				// explained is in ex.
				c.run()
				if ex.err != nil {
					t.Fatalf("%s: EXPLAIN: %v", c.name, ex.err)
				}
				if ex.runs != 1 {
					t.Fatalf("%s: %d statements explained, want 1", c.name, ex.runs)
				}
				for _, w := range c.want {
					if !strings.Contains(ex.plan, w) {
						t.Errorf("%s (%s, %s): plan lacks %s:\n%s", c.name, state, mode, w, ex.plan)
					}
				}
				if scan := readsWholeProject(ex.plan); scan != "" {
					t.Errorf("%s (%s, %s): plan reads all of a project's rows (%s):\n%s", c.name, state, mode, scan, ex.plan)
				}
				for _, f := range c.forbidden {
					if strings.Contains(ex.plan, f) {
						t.Errorf("%s (%s, %s): plan has %s:\n%s", c.name, state, mode, f, ex.plan)
					}
				}
			}
		}
	}

	run("never analyzed")

	// Claims empty when ANALYZE looked.
	if _, err := pool.Exec(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	run("no claims")

	// Thousands of claims, old and new, and dead entries at the queue's head.
	for range 50 {
		if _, err := q.ClaimsTakeSlots(ctx, slots(p.ID, 0, 100)); err != nil {
			t.Fatal(err)
		}
	}
	if n := dbtest.MustExec(t, pool, "UPDATE claims SET claimed_at = claimed_at - $1::interval WHERE id % 2 = 0", time.Hour); n == 0 {
		t.Fatal("no claims aged")
	}
	if _, err := pool.Exec(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	run("5,000 claims")
}

// readsWholeProject returns the scan of a plan that reads an index by
// project alone: all of a project's rows of a table, where the statement
// wants a few. The hot statements' one such scan is allowed: whether the
// project has any parameters at all (an EXISTS, which stops at the first).
func readsWholeProject(plan string) string {
	lines := strings.Split(plan, "\n")
	for i, l := range lines {
		if i > 0 && byProject.MatchString(l) && !strings.Contains(lines[i-1], "on item_params x ") {
			return strings.TrimSpace(lines[i-1])
		}
	}
	return ""
}

var byProject = regexp.MustCompile(`(Index|Recheck) Cond: \(project_id = \$\d+\)$`)

// slots asks for n items of the todo queue for downloader "a".
func slots(project int32, after int64, n int) db.ClaimsTakeSlotsParams {
	p := db.ClaimsTakeSlotsParams{ProjectID: project, Queue: "todo", AfterID: after, Max: int32(n), Budget: 4 << 20}
	for range n {
		p.Nicks, p.Versions, p.Ips = append(p.Nicks, "a"), append(p.Versions, ""), append(p.Ips, "")
		p.Requests, p.Carried = append(p.Requests, 0), append(p.Carried, 0)
	}
	return p
}

// TestHashFunctionsInline checks that the hash and type functions every
// imported, claimed and completed name goes through are expanded into the
// statements calling them: a function PostgreSQL cannot inline runs through
// its SQL-function executor on each call, several times dearer than the
// hash itself.
func TestHashFunctionsInline(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	for _, call := range []string{"item_hash(name)", "item_key_hash(queue, name)", "item_type(name)", "queue_type(queue, name, '{}', site)"} {
		var plan []string
		rows, err := pool.Query(ctx, "EXPLAIN (VERBOSE) SELECT "+call+" FROM todo")
		if err == nil {
			plan, err = pgx.CollectRows(rows, pgx.RowTo[string])
		}
		if err != nil {
			t.Fatalf("%s: %v", call, err)
		}
		for _, l := range plan {
			if strings.Contains(l, "Output:") && notInlined.MatchString(l) {
				t.Errorf("%s is not inlined: %s", call, strings.TrimSpace(l))
			}
		}
	}
}

var notInlined = regexp.MustCompile(`\b(item_hash|item_key_hash|item_type|queue_type)\(`)

// TestRepeatedDoneProbesNoBands: a done repeated for items of a recurring
// project that are waiting for their next visit (the first done scheduled
// them; seesaw sends a done again when its answer was lost) looks for none
// of them in the queues. Such an item is in no queue, and a done naming
// thousands of them would otherwise probe each in the 100 bands' queues,
// the standard ones and every reporter's own, in every stretch: seconds of
// the database's time for one request anyone may send.
func TestRepeatedDoneProbesNoBands(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	q := db.New(pool)
	p, err := q.ProjectInsert(ctx, db.ProjectInsertParams{Slug: "recurring", Config: []byte(`{"mode":"recurring"}`)})
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 1_000)
	for i := range names {
		names[i] = fmt.Sprintf("item:%d", i)
	}
	if _, err := q.TodoAddUnseen(ctx, db.TodoAddUnseenParams{ProjectID: p.ID, Queue: "todo", Names: names}); err != nil {
		t.Fatal(err)
	}
	// Visited: waiting for the next visit, seen and in no queue.
	if _, err := pool.Exec(ctx, `WITH visited AS (DELETE FROM todo WHERE project_id = $1 RETURNING id, name)
		INSERT INTO revisits (project_id, due_at, id, name, score) SELECT $1, now() + interval '1 day', id, name, 1 FROM visited`, p.ID); err != nil {
		t.Fatal(err)
	}
	// Other items are due and queued in every band: the done looks only
	// in the stretches holding items, and here all of them do.
	for i := range 100 {
		if _, err := q.TodoAddUnseen(ctx, db.TodoAddUnseenParams{ProjectID: p.ID, Queue: fmt.Sprintf("revisit:%02d", i),
			Names: []string{fmt.Sprintf("due:%d", i)}, IDBlock: int64(i + 1)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := pool.Exec(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	// The queues and stretches a recurring project's done looks in (see
	// items.Engine.runDones), for three reporters.
	queues := []string{"todo", "backfeed", "secondary", "redo", "error"}
	for i := range 100 {
		queues = append(queues, fmt.Sprintf("revisit:%02d", i))
	}
	queues = append(queues, "downloader:a", "downloader:b", "downloader:c")
	arg := db.DoneRecordBatchParams{ProjectID: p.ID, Queues: queues, Types: []string{"", ":site"},
		Requests: []db.DoneRequest{{Downloader: "a", Bytes: 1, Domains: []byte("{}")}, {Downloader: "b", Bytes: 1, Domains: []byte("{}")},
			{Downloader: "c", Bytes: 1, Domains: []byte("{}")}},
		Recurring: true, RetireBelow: 0.005, RevisitAfter: time.Hour}
	for i, name := range names {
		arg.Requests[i%3].Names = append(arg.Requests[i%3].Names, name)
	}

	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	ex := &explainer{conn: conn, analyze: true}
	for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
		if _, err := conn.Exec(ctx, "SET plan_cache_mode = "+mode); err != nil {
			t.Fatal(err)
		}
		db.New(ex).DoneRecordBatch(ctx, arg)
		if ex.err != nil {
			t.Fatalf("%s: EXPLAIN ANALYZE: %v", mode, ex.err)
		}
		probes := 0
		for _, m := range todoProbes.FindAllStringSubmatch(ex.plan, -1) {
			n, err := strconv.Atoi(m[1])
			if err != nil {
				t.Fatal(err)
			}
			probes += n
		}
		if probes > len(names) {
			t.Errorf("%s: a repeated done of %d items waiting for their visit probed the queues %d times:\n%s", mode, len(names), probes, ex.plan)
		}
	}
}

// todoProbes finds the scans of todo in an analyzed plan, with how many
// times each ran.
var todoProbes = regexp.MustCompile(`Scan using \w+ on todo(?: \w+)? +\(actual rows=\d+ loops=(\d+)\)`)
