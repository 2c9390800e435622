package volunteers_test

import (
	"context"
	"net/netip"
	"sync"
	"testing"
	"time"

	"tracker/db/dbtest"
	"tracker/volunteers"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// clock is a test clock that moves only when told.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// An address counts once in 30 days, per project and tracker-wide, across
// processes and a change of secret; after 30 days it counts again. No
// address is stored.
func TestVolunteersCountOnceIn30Days(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	clk := &clock{t: time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)}
	one, other := volunteers.New(pool, volunteers.WithClock(clk.now)), volunteers.New(pool, volunteers.WithClock(clk.now))
	alice, bob := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("2001:db8::7")
	// Marks count for projects that exist: one being deleted, or gone, counts none.
	p1, p2 := dbtest.Project(t, pool, "one", "").ID, dbtest.Project(t, pool, "two", "").ID

	mark := func(c *volunteers.Counter, project int32, a netip.Addr) {
		t.Helper()
		if err := c.Mark(ctx, project, a); err != nil {
			t.Fatal(err)
		}
	}
	counts := func(project int32, month, last30 int64) {
		t.Helper()
		got, err := one.Counts(ctx, project)
		if err != nil || got.Month != month || got.Last30 != last30 {
			t.Fatalf("project %d at %s: %+v, %v; want month %d, 30 days %d", project, clk.now().Format(time.DateOnly), got, err, month, last30)
		}
	}

	mark(one, p1, alice)
	mark(other, p1, alice) // another process, same address
	mark(one, p2, alice)   // another project: counts there, not twice overall
	counts(p1, 1, 1)
	counts(p2, 1, 1)
	counts(volunteers.Tracker, 1, 1)

	// 20 days on, bob comes; alice again, still marked.
	clk.add(20 * 24 * time.Hour)
	mark(other, p1, bob)
	mark(other, p1, alice)
	counts(p1, 2, 2)

	// 31 days after the first request, in April: the secret is replaced.
	// Alice's mark has expired: she counts again. Bob's, made with the old
	// secret, lives on: he is recognised and not counted twice.
	clk.add(11 * 24 * time.Hour)
	if err := one.Rotate(ctx); err != nil {
		t.Fatal(err)
	}
	var secrets int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM volunteer_secrets").Scan(&secrets); err != nil || secrets != 2 {
		t.Fatalf("%d secrets after the change, want the new and the old", secrets)
	}
	mark(one, p1, alice)
	mark(one, p1, bob)
	counts(p1, 1, 2) // April: alice; the last 30 days: bob (March 30) and alice
	counts(volunteers.Tracker, 1, 2)

	// The database holds marks, never addresses.
	var addresses int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM volunteer_marks WHERE position($1::bytea IN mark) > 0 OR position($2::bytea IN mark) > 0`,
		alice.AsSlice(), bob.AsSlice()).Scan(&addresses); err != nil || addresses != 0 {
		t.Fatalf("%d marks hold an address (%v)", addresses, err)
	}
}
