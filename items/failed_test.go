package items_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"tracker/db/dbtest"
	"tracker/items"
	"tracker/naming"
)

// reclaim runs the reclaim job once.
func (f fixture) reclaim(t *testing.T) (requeued, failed int64) {
	t.Helper()
	requeued, failed, err := f.engine.ReclaimExpired(context.Background(), f.project, 100)
	if err != nil {
		t.Fatal(err)
	}
	return requeued, failed
}

// status is where an item stands.
func (f fixture) status(t *testing.T, name string) items.ItemStatus {
	t.Helper()
	st, err := f.lookup(t, "", name)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// An item whose claim expires after max_claims hand-outs fails: it goes to
// the error queue with the history of its claims, no warrior gets it again,
// and an admin's move brings it back with a fresh count.
func TestItemFailsAfterMaxClaims(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	var err error
	if f.project, err = f.store.Set(ctx, f.project, []string{"reclaim_ttl=60", "max_claims=2"}); err != nil {
		t.Fatal(err)
	}
	f.add(t, "todo", "user:a", "user:b")

	// First hand-out of a, expired: back in its queue, history kept.
	if got := f.claim(t, "alice", 1); len(got) != 1 || got[0] != "user:a" {
		t.Fatalf("alice got %v", got)
	}
	f.age(t)
	if requeued, failed := f.reclaim(t); requeued != 1 || failed != 0 {
		t.Fatalf("first expiry: %d requeued, %d failed", requeued, failed)
	}
	// Second hand-out of a, expired: it fails.
	if got := f.claim(t, "bob", 1); len(got) != 1 || got[0] != "user:a" {
		t.Fatalf("bob got %v", got)
	}
	f.age(t)
	if requeued, failed := f.reclaim(t); requeued != 0 || failed != 1 {
		t.Fatalf("second expiry: %d requeued, %d failed", requeued, failed)
	}
	st := f.status(t, "user:a")
	if st.Status != items.StatusFailed || st.Queue != naming.ErrorQueue || st.ClaimCount != 2 || len(st.Expired) != 2 ||
		st.Expired[0].Downloader != "alice" || st.Expired[1].Downloader != "bob" {
		t.Fatalf("failed item: %+v", st)
	}
	if s := f.summary(t); s.Errors() != 1 || s.Failed != 1 || s.Queued() != 1 {
		t.Fatalf("summary: %d errors, %d failed, %d queued", s.Errors(), s.Failed, s.Queued())
	}
	// Warriors get b, then nothing: a is out of circulation.
	if got := f.claim(t, "carol", 5); len(got) != 1 || got[0] != "user:b" {
		t.Fatalf("carol got %v", got)
	}
	if got := f.claim(t, "carol", 5); len(got) != 0 {
		t.Fatalf("a failed item was handed out: %v", got)
	}
	page, err := f.engine.QueuePage(ctx, f.project, naming.ErrorQueue, "user:", 0, 10)
	if err != nil || len(page) != 1 || page[0].Name != "user:a" || page[0].LastDownloader != "bob" {
		t.Fatalf("error queue page: %+v, %v", page, err)
	}

	// Queued again: handed out with a fresh count, two more chances.
	if n, err := f.engine.MoveQueue(ctx, f.project, naming.ErrorQueue, "todo", items.Exactly("user:a")); err != nil || n != 1 {
		t.Fatalf("requeue: %d, %v", n, err)
	}
	if st := f.status(t, "user:a"); st.Status != items.StatusTodo || st.ClaimCount != 0 {
		t.Fatalf("requeued: %+v", st)
	}
	if got := f.claim(t, "dave", 1); len(got) != 1 || got[0] != "user:a" {
		t.Fatalf("dave got %v", got)
	}
	f.balanced(t)
}

// A request hands out expired claims of items with chances left, keeping
// who let them expire; an item at max_claims is left for the reclaim job to
// fail.
func TestRequestSkipsExpiredClaimsAtMaxClaims(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	var err error
	if f.project, err = f.store.Set(ctx, f.project, []string{"reclaim_ttl=60", "max_claims=2"}); err != nil {
		t.Fatal(err)
	}
	f.add(t, "todo", "a")
	f.claim(t, "alice", 1)
	f.age(t)
	if got := f.claim(t, "bob", 1); len(got) != 1 {
		t.Fatalf("bob was not handed alice's expired claim: %v", got)
	}
	if st := f.status(t, "a"); len(st.Expired) != 1 || st.Expired[0].Downloader != "alice" || st.Downloader != "bob" {
		t.Fatalf("after the reclaim: %+v", st)
	}
	f.age(t)
	if got := f.claim(t, "carol", 1); len(got) != 0 {
		t.Fatalf("an item at max_claims was handed out again: %v", got)
	}
	if _, failed := f.reclaim(t); failed != 1 {
		t.Fatal("the job did not fail the item")
	}
}

// A downloader whose claims keep running out is refused until fewer did.
func TestExpiredClaimsLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	var err error
	if f.project, err = f.store.Set(ctx, f.project, []string{"reclaim_ttl=60", "expired_claims_limit=2"}); err != nil {
		t.Fatal(err)
	}
	f.add(t, "todo", "a", "b", "c", "d")
	f.claim(t, "mallory", 2)
	f.age(t)
	f.reclaim(t)
	_, err = f.request("mallory", 1)
	var refusal *items.Refusal
	if !errors.As(err, &refusal) || refusal.Reason != items.ReasonTooManyExpired {
		t.Fatalf("mallory after 2 expiries: %v", err)
	}
	if got := f.claim(t, "alice", 1); len(got) != 1 {
		t.Fatal("another downloader was refused too")
	}
	// An hour on, the expiries no longer count (for another process at
	// once; this one reads its list again within a second).
	dbtest.Age(t, f.pool, 61*time.Minute, dbtest.ExpiredClaims(f.project.ID))
	f.engine = items.NewEngine(f.pool, nil)
	if got := f.claim(t, "mallory", 1); len(got) != 1 {
		t.Fatal("mallory is still refused an hour on")
	}
}

// A failed item stays one stretch of the error queue when the type limits
// change, and its last holder's late done still completes it: they did the
// work.
func TestFailedItemTypesAndLateDone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	var err error
	if f.project, err = f.store.Set(ctx, f.project, []string{"reclaim_ttl=60", "max_claims=1"}); err != nil {
		t.Fatal(err)
	}
	f.add(t, "todo", "user:late", "user:listed")
	f.claim(t, "alice", 2)
	f.age(t)
	if _, failed := f.reclaim(t); failed != 2 {
		t.Fatalf("%d failed, want 2", failed)
	}
	if f.project, err = f.store.Set(ctx, f.project, []string{"type_limits=user:10"}); err != nil {
		t.Fatal(err)
	}
	page, err := f.engine.QueuePage(ctx, f.project, naming.ErrorQueue, "", 0, 10)
	if err != nil || len(page) != 2 {
		t.Fatalf("error queue after a change of limits: %+v, %v", page, err)
	}
	if n := f.complete(t, items.Completion{Downloader: "alice", Items: []string{"user:late"}, Bytes: map[string]int64{"data": 1}}); n != 1 {
		t.Fatalf("the last holder's late done completed %d", n)
	}
	if st := f.status(t, "user:late"); st.Status != items.StatusDone {
		t.Fatalf("after the late done: %+v", st)
	}
	if s := f.summary(t); s.Errors() != 1 {
		t.Fatalf("%d failed items left, want 1", s.Errors())
	}
	f.balanced(t)
}
