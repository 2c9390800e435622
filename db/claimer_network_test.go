package db_test

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"tracker/db"
	"tracker/db/dbtest"
)

// A completion checked against its claims' networks (claimer_network) is
// still one statement for the whole batch, reading each of its parts once
// and the claims by key: 16 requests of 100 items, every other one from
// another network than the claims', analyzed with generic plans as the
// engine runs them. Run for real, it completes the items of the requests
// from the claims' network and counts the others.
func TestClaimerNetworkBatchIsOneStatement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	q := db.New(pool)
	p, err := q.ProjectInsert(ctx, db.ProjectInsertParams{Slug: "batch", Config: []byte(`{"claimer_network":true}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `SELECT done_partitions_ensure($1, current_date, current_date)`, p.ID); err != nil {
		t.Fatal(err)
	}
	const n = 1600
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("item:%d", i)
	}
	if _, err := q.TodoAddUnseen(ctx, db.TodoAddUnseenParams{ProjectID: p.ID, Queue: "todo", Names: names, IDBlock: 1}); err != nil {
		t.Fatal(err)
	}
	take := slots(p.ID, 0, n)
	for i := range take.Requests {
		take.Requests[i] = int32(i / 100)
		take.Ips[i] = "192.0.2.1"
	}
	if _, err := q.ClaimsTakeSlots(ctx, take); err != nil {
		t.Fatal(err)
	}
	near, away := netip.MustParseAddr("192.0.2.200"), netip.MustParseAddr("198.51.100.1")
	done := db.DoneRecordBatchParams{ProjectID: p.ID, ClaimerNetwork: true,
		Queues: []string{"todo", "backfeed", "secondary", "redo", "downloader:a"}, Types: []string{"", ":site"}}
	for i := 0; i < n; i += 100 {
		ip := &near
		if i/100%2 == 1 {
			ip = &away
		}
		done.Requests = append(done.Requests, db.DoneRequest{Downloader: "a", IP: ip, Bytes: 100, Domains: []byte(`{"data":100}`), Names: names[i : i+100]})
	}

	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SET plan_cache_mode = force_generic_plan"); err != nil {
		t.Fatal(err)
	}
	ex := &explainer{conn: conn, analyze: true}
	db.New(ex).DoneRecordBatch(ctx, done)
	if ex.err != nil || ex.runs != 1 {
		t.Fatalf("%d statements explained (%v), want 1", ex.runs, ex.err)
	}
	if !strings.Contains(ex.plan, "rows=1600 loops=1") {
		t.Fatalf("the statement did not run on the whole batch:\n%s", ex.plan)
	}
	for _, m := range partScans.FindAllStringSubmatch(ex.plan, -1) {
		if m[2] != "1" {
			t.Errorf("it scans its part %s %s times:\n%s", m[1], m[2], ex.plan)
		}
	}
	if !strings.Contains(ex.plan, "claims_pkey") || strings.Contains(ex.plan, "Seq Scan on claims") {
		t.Errorf("the claims are not read by key:\n%s", ex.plan)
	}

	rows, err := db.New(conn).DoneRecordBatch(ctx, done)
	if err != nil {
		t.Fatal(err)
	}
	var completed, others int64
	for _, r := range rows {
		completed += r.Completed
		others += r.Away
		if want := int64(100 * ((r.Req - 1) % 2)); r.Away != want || r.Completed != 100-want {
			t.Errorf("request %d: completed %d, from another network %d", r.Req, r.Completed, r.Away)
		}
	}
	if completed != n/2 || others != n/2 {
		t.Fatalf("completed %d, from another network %d; want %d each", completed, others, n/2)
	}
}
