package db_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"tracker/db"
	"tracker/db/dbtest"
)

// The admin panel's queue browser and the actions on a selection read a
// page from its place in an index and find the items picked by key: a
// page, a count or a move costs the same in a queue of ten million items
// as in one of ten. None may read a queue (or a project's claims,
// schedule or completions) whole, whether the plan is custom or generic.
func TestBrowsePlans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	q := db.New(pool)
	// First as a fresh install has the tables, never analyzed.
	for _, table := range []string{"todo", "claims", "seen", "revisits", "audit_log", "sites"} {
		if _, err := pool.Exec(ctx, "ALTER TABLE "+table+" SET (autovacuum_enabled = off)"); err != nil {
			t.Fatal(err)
		}
	}
	p, err := q.ProjectInsert(ctx, db.ProjectInsertParams{Slug: "browse", Config: []byte(`{"type_limits":{"post":600}}`)})
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 20_000)
	for i := range names {
		names[i] = fmt.Sprintf("%s:%d", []string{"post", "user"}[i%2], i)
	}
	if _, err := q.TodoAddUnseen(ctx, db.TodoAddUnseenParams{ProjectID: p.ID, Queue: "todo", Names: names, IDBlock: 1}); err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		`INSERT INTO revisits (project_id, due_at, id, name, score) SELECT $1, now() + g * interval '1 second', g, 'r:' || g, 1 FROM generate_series(1, 20000) g`,
		`INSERT INTO audit_log (username, action, project_id, detail) SELECT 'root', 'queue.move', $1, jsonb_build_object('names', jsonb_build_array('n:' || g)) FROM generate_series(1, 20000) g`,
		`SELECT done_partitions_ensure($1, current_date, current_date)`,
		`INSERT INTO done (project_id, id, name, downloader, bytes, claimed_at, claim_count) SELECT $1, g, 'd:' || g, 'a', 1, now(), 1 FROM generate_series(1, 20000) g`,
	} {
		if _, err := pool.Exec(ctx, sql, p.ID); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	// Sites, as a project that kept sites once has them: the moves count
	// the sites of the items they move, each site found by key.
	siteNames := make([]string, 2_000)
	for i := range siteNames {
		siteNames[i] = fmt.Sprintf("s%d.example", i)
	}
	if err := q.SitesAdd(ctx, db.SitesAddParams{ProjectID: p.ID, Names: siteNames}); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if _, err := q.ClaimsTakeSlots(ctx, slots(p.ID, 0, 100)); err != nil {
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
	ids, picked := []int64{1<<20 | 5, 1<<20 | 6}, []string{"post:4", "user:5"}
	far := time.Now().Add(time.Hour)
	checks := []struct {
		name      string
		run       func()
		want      []string
		forbidden []string
	}{
		{"TodoPage", func() {
			eq.TodoPage(ctx, db.TodoPageParams{ProjectID: p.ID, Queue: "todo", Types: []string{"", "post", ":site"}, AfterID: 0, Max: 100})
		}, []string{"todo_pkey"}, []string{"Seq Scan on todo", stretchesSorted}},
		{"TodoBrowse", func() {
			eq.TodoBrowse(ctx, db.TodoBrowseParams{ProjectID: p.ID, Queue: "todo", AfterID: 1 << 20, Scan: 101, Max: 101})
		}, []string{"todo_pkey"}, []string{"Seq Scan on todo", stretchesSorted}},
		{"TodoBrowse filtered", func() {
			eq.TodoBrowse(ctx, db.TodoBrowseParams{ProjectID: p.ID, Queue: "todo", AfterID: 0, Scan: 10_000, Pattern: "9$", Max: 101})
		}, []string{"todo_pkey"}, []string{"Seq Scan on todo", stretchesSorted}},
		{"TodoBrowseBack", func() {
			eq.TodoBrowseBack(ctx, db.TodoBrowseBackParams{ProjectID: p.ID, Queue: "todo", BeforeID: 1<<62 - 1, Scan: 101, Max: 101})
		}, []string{"todo_pkey", "Index Scan Backward"}, []string{"Seq Scan on todo", stretchesSorted}},
		{"TodoCountItems", func() {
			eq.TodoCountItems(ctx, db.TodoCountItemsParams{ProjectID: p.ID, Queue: "todo", IDs: ids, Names: picked})
		}, []string{"todo_pkey"}, []string{"Seq Scan on todo"}},
		{"TodoMoveItems", func() {
			eq.TodoMoveItems(ctx, db.TodoMoveItemsParams{ProjectID: p.ID, FromQueue: "todo", ToQueue: "redo", IDs: ids, Names: picked,
				Queues: []string{"todo", "redo"}, Types: []string{"", "post", ":site"}})
		}, []string{"todo_pkey"}, []string{"Seq Scan on todo"}},
		{"SeenIDsOfNames", func() {
			eq.SeenIDsOfNames(ctx, db.SeenIDsOfNamesParams{ProjectID: p.ID, Names: picked})
		}, []string{"seen_pkey", "seen_item"}, []string{"Seq Scan on seen"}},
		{"ClaimsBrowse", func() {
			eq.ClaimsBrowse(ctx, db.ClaimsBrowseParams{ProjectID: p.ID, AfterAt: time.Unix(0, 0), Scan: 101, Max: 101})
		}, []string{"claims_claimed_at"}, []string{"Seq Scan on claims"}},
		{"ClaimsBrowseBack", func() {
			eq.ClaimsBrowseBack(ctx, db.ClaimsBrowseBackParams{ProjectID: p.ID, BeforeAt: far, BeforeID: 1 << 62, Scan: 101, Max: 101})
		}, []string{"claims_claimed_at"}, []string{"Seq Scan on claims"}},
		{"RevisitsBrowse", func() {
			eq.RevisitsBrowse(ctx, db.RevisitsBrowseParams{ProjectID: p.ID, AfterAt: time.Unix(0, 0), Scan: 101, Max: 101})
		}, []string{"revisits_pkey"}, []string{"Seq Scan on revisits"}},
		{"RevisitsBrowseBack", func() {
			eq.RevisitsBrowseBack(ctx, db.RevisitsBrowseBackParams{ProjectID: p.ID, BeforeAt: far, BeforeID: 1 << 62, Scan: 101, Max: 101})
		}, []string{"revisits_pkey"}, []string{"Seq Scan on revisits"}},
		{"RevisitsVisitNow", func() {
			eq.RevisitsVisitNow(ctx, db.RevisitsVisitNowParams{ProjectID: p.ID, IDs: []int64{5, 6}, Names: []string{"r:5", "r:6"}})
		}, []string{"revisits_item"}, []string{"Seq Scan on revisits"}},
		{"DoneBrowse", func() {
			eq.DoneBrowse(ctx, db.DoneBrowseParams{ProjectID: p.ID, AfterID: 0, Scan: 101, Max: 101})
		}, []string{"id_idx"}, []string{"Seq Scan on done"}},
		{"DoneRequeueItems", func() {
			eq.DoneRequeueItems(ctx, db.DoneRequeueItemsParams{ProjectID: p.ID, Queue: "redo", IDs: []int64{5, 6}, Names: []string{"d:5", "d:6"},
				Queues: []string{"todo", "redo"}})
		}, []string{"id_idx"}, []string{"Seq Scan on done"}},
		{"AuditLogOfItem", func() {
			eq.AuditLogOfItem(ctx, db.AuditLogOfItemParams{ProjectID: p.ID, Name: "n:5", Exactly: "^n:5$", Max: 20})
		}, []string{"audit_log_detail"}, []string{"Seq Scan on audit_log"}},
	}
	run := func(state string) {
		for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
			if _, err := conn.Exec(ctx, "SET plan_cache_mode = "+mode); err != nil {
				t.Fatal(err)
			}
			for _, c := range checks {
				c.run()
				if ex.err != nil {
					t.Fatalf("%s: EXPLAIN: %v", c.name, ex.err)
				}
				for _, w := range c.want {
					if !strings.Contains(ex.plan, w) {
						t.Errorf("%s (%s, %s): plan lacks %s:\n%s", c.name, state, mode, w, ex.plan)
					}
				}
				// As in the hot statements, whether the project has
				// any parameters or scores at all is read (an EXISTS).
				if scan := readsWholeProject(existsOnly.ReplaceAllString(ex.plan, "on item_params x ")); scan != "" {
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
	if _, err := pool.Exec(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	run("analyzed")
}

// stretchesSorted is a read of a queue's stretches at once: its entries
// come in type order, so ids in order take a sort of the whole queue.
const stretchesSorted = "AND (type = ANY"

var existsOnly = regexp.MustCompile(`on item_(params|scores) x(_\d+)? `)
