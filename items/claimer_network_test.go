package items_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"tracker/db"
	"tracker/items"
	"tracker/projects"
)

// claimFrom asks for n items as nick from address ip ("" for unknown).
func (f fixture) claimFrom(t *testing.T, nick, ip string, n int) []string {
	t.Helper()
	live, err := projects.NewCache(f.store, 0).Get(context.Background(), f.project.Slug)
	if err != nil {
		t.Fatal(err)
	}
	h, err := f.engine.Request(context.Background(), live, items.ClaimRequest{Downloader: nick, Max: n, IP: addr(ip)})
	if err != nil {
		t.Fatalf("%s from %q: %v", nick, ip, err)
	}
	return h.Names
}

// addr is ip as an address, the zero Addr for "".
func addr(ip string) netip.Addr {
	if ip == "" {
		return netip.Addr{}
	}
	return netip.MustParseAddr(ip)
}

// With claimer_network, a done completes an item for its holder, or its
// last holder, only from the network that holder claimed it from (the
// same /24, the same /48): from anywhere else it is answered as a done of
// an item not held, and the item stays where it is. Off, it completes as
// before; either way it is counted.
func TestDoneFromTheClaimersNetwork(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reclaimedByBob := func(t *testing.T, f fixture) {
		f.age(t)
		if got := f.claimFrom(t, "bob", "203.0.113.5", 1); len(got) != 1 {
			t.Fatalf("bob got %v", got)
		}
	}
	expired := func(t *testing.T, f fixture) { f.expire(t) }
	requeuedForBob := func(t *testing.T, f fixture) {
		f.expire(t)
		if got := f.claimFrom(t, "bob", "203.0.113.5", 1); len(got) != 1 {
			t.Fatalf("bob got %v", got)
		}
	}
	released := func(t *testing.T, f fixture) {
		if _, err := f.engine.ReleaseFrom(ctx, f.project, []string{"a"}, "alice", addr("192.0.2.10")); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name string
		// claim is where alice claims "a" from; setup moves it on after.
		claim string
		setup func(t *testing.T, f fixture)
		// The done: whose nick, from where, with the key on or off; what
		// it completes, where "a" is after it, and whether it is counted
		// as from another network.
		from      string
		on        bool
		completed int64
		where     string
		away      int64
	}{
		{"holder, same address", "192.0.2.10", nil, "192.0.2.10", true, 1, "done", 0},
		{"holder, same /24", "192.0.2.10", nil, "192.0.2.200", true, 1, "done", 0},
		{"holder's nick, another /24", "192.0.2.10", nil, "192.0.3.10", true, 0, "claimed by alice", 1},
		{"holder's nick, another /24, key off", "192.0.2.10", nil, "192.0.3.10", false, 1, "done", 1},
		{"IPv6 holder, same /48", "2001:db8:1:2::10", nil, "2001:db8:1:ffff::1", true, 1, "done", 0},
		{"IPv6 holder's nick, another /48", "2001:db8:1:2::10", nil, "2001:db8:2:2::10", true, 0, "claimed by alice", 1},
		{"IPv4 claim, IPv6 done", "192.0.2.10", nil, "2001:db8::1", true, 0, "claimed by alice", 1},
		{"a done from no known address (an admin's)", "192.0.2.10", nil, "", true, 1, "done", 0},
		{"a claim from no known address", "", nil, "198.51.100.1", true, 1, "done", 0},
		{"previous holder after a direct reclaim", "192.0.2.10", reclaimedByBob, "192.0.2.99", true, 1, "done", 0},
		{"previous holder's nick after a direct reclaim, from the new holder's network", "192.0.2.10", reclaimedByBob, "203.0.113.5", true, 0, "claimed by bob", 1},
		{"previous holder after expiry, queued again", "192.0.2.10", expired, "192.0.2.10", true, 1, "done", 0},
		{"previous holder's nick after expiry, another network", "192.0.2.10", expired, "198.51.100.1", true, 0, "queued", 1},
		{"previous holder's nick after a release, another network", "192.0.2.10", released, "198.51.100.1", true, 0, "queued", 1},
		{"previous holder after a claim from the queue", "192.0.2.10", requeuedForBob, "192.0.2.10", true, 1, "done", 0},
		{"previous holder's nick after a claim from the queue, another network", "192.0.2.10", requeuedForBob, "198.51.100.1", true, 0, "claimed by bob", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			var err error
			if f.project, err = f.store.Set(ctx, f.project, []string{"reclaim_ttl=60", fmt.Sprintf("claimer_network=%v", c.on)}); err != nil {
				t.Fatal(err)
			}
			f.add(t, "todo", "a")
			if got := f.claimFrom(t, "alice", c.claim, 1); len(got) != 1 {
				t.Fatalf("alice got %v", got)
			}
			if c.setup != nil {
				c.setup(t, f)
			}
			n := f.complete(t, items.Completion{Downloader: "alice", IP: addr(c.from), Items: []string{"a"}, Bytes: map[string]int64{"data": 10}})
			if n != c.completed {
				t.Errorf("completed %d, want %d", n, c.completed)
			}
			if got := f.where(t, "a"); got != c.where {
				t.Errorf("a is %s, want %s", got, c.where)
			}
			s := f.summary(t)
			if s.DoneOtherNetwork != c.away || s.DoneNotHeld != 0 {
				t.Errorf("done_other_network %d, done_not_held %d; want %d and 0", s.DoneOtherNetwork, s.DoneNotHeld, c.away)
			}
		})
	}
}

// In one batch, a done from another network under the holder's nick and
// the holder's own: the holder's completes the item, whichever came
// first, with the key on or off; the other is counted.
func TestDoneFromTheClaimersNetworkFirstInABatch(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprintf("claimer_network=%v", on), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := setup(t)
			var err error
			if f.project, err = f.store.Set(ctx, f.project, []string{fmt.Sprintf("claimer_network=%v", on)}); err != nil {
				t.Fatal(err)
			}
			f.add(t, "todo", "a")
			f.claimFrom(t, "alice", "192.0.2.10", 1)
			var done []int64
			err = pgx.BeginFunc(ctx, f.pool, func(tx pgx.Tx) error {
				done, err = f.engine.CompleteIn(ctx, db.Of(tx), f.project,
					items.Completion{Downloader: "alice", IP: addr("198.51.100.7"), Items: []string{"a"}},
					items.Completion{Downloader: "alice", IP: addr("192.0.2.10"), Items: []string{"a"}})
				return err
			})
			if err != nil || done[0] != 0 || done[1] != 1 {
				t.Fatalf("completed %v (%v), want [0 1]: the holder's network's", done, err)
			}
			var ip netip.Addr
			if err := f.pool.QueryRow(ctx, `SELECT ip FROM done WHERE name = 'a'`).Scan(&ip); err != nil || ip != addr("192.0.2.10") {
				t.Fatalf("completed from %v (%v)", ip, err)
			}
			if s := f.summary(t); s.DoneOtherNetwork != 1 {
				t.Fatalf("done_other_network %d, want 1", s.DoneOtherNetwork)
			}
		})
	}
}

// With claimer_network, a release gives a claim back only from the
// network it was made from; from elsewhere it releases nothing
// (ErrNotHeld) and the item stays claimed. Off, it releases. Either way a
// release from elsewhere is counted.
func TestReleaseFromTheClaimersNetwork(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, claim, from string
		on, released      bool
		away              int64
	}{
		{"same /24", "192.0.2.10", "192.0.2.20", true, true, 0},
		{"another /24", "192.0.2.10", "192.0.3.10", true, false, 1},
		{"another /24, key off", "192.0.2.10", "192.0.3.10", false, true, 1},
		{"IPv6, same /48", "2001:db8:1:2::10", "2001:db8:1:3::10", true, true, 0},
		{"IPv6, another /48", "2001:db8:1:2::10", "2001:db8:9:2::10", true, false, 1},
		{"no known address", "192.0.2.10", "", true, true, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := setup(t)
			var err error
			if f.project, err = f.store.Set(ctx, f.project, []string{fmt.Sprintf("claimer_network=%v", c.on)}); err != nil {
				t.Fatal(err)
			}
			f.add(t, "todo", "a", "b")
			f.claimFrom(t, "alice", c.claim, 2)
			got, err := f.engine.ReleaseFrom(ctx, f.project, []string{"a", "b"}, "alice", addr(c.from))
			switch {
			case c.released && (err != nil || len(got) != 2):
				t.Fatalf("released %v, %v; want both", got, err)
			case !c.released && !errors.Is(err, items.ErrNotHeld):
				t.Fatalf("released %v, %v; want ErrNotHeld", got, err)
			}
			want := "claimed by alice"
			if c.released {
				want = "queued"
			}
			if w := f.where(t, "a"); w != want {
				t.Fatalf("a is %s, want %s", w, want)
			}
			if s := f.summary(t); s.ReleaseOtherNetwork != 2*c.away {
				t.Fatalf("release_other_network %d, want %d", s.ReleaseOtherNetwork, 2*c.away)
			}
		})
	}
}

// statements counts the statements sent through it.
type statements struct {
	db.DBTX
	n int
}

func (s *statements) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	s.n++
	return s.DBTX.Exec(ctx, sql, args...)
}

func (s *statements) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	s.n++
	return s.DBTX.Query(ctx, sql, args...)
}

func (s *statements) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	s.n++
	return s.DBTX.QueryRow(ctx, sql, args...)
}

// A batch of dones is checked against its claims' networks in the
// statement that records it: with claimer_network on, a batch of three
// requests naming 3 items or 300, from the holder's network and from
// others, sends as many statements as with it off, none per item.
func TestClaimerNetworkChecksABatchInItsStatement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	count := func(t *testing.T, on bool, n int) int {
		f := setup(t)
		var err error
		if f.project, err = f.store.Set(ctx, f.project, []string{fmt.Sprintf("claimer_network=%v", on), "max_multi=1000"}); err != nil {
			t.Fatal(err)
		}
		var names []string
		for i := range 3 * n {
			names = append(names, fmt.Sprintf("item:%d", i))
		}
		f.add(t, "todo", names...)
		if got := f.claimFrom(t, "alice", "192.0.2.10", 3*n); len(got) != 3*n {
			t.Fatalf("alice got %d items, want %d", len(got), 3*n)
		}
		var s *statements
		var done []int64
		err = pgx.BeginFunc(ctx, f.pool, func(tx pgx.Tx) error {
			s = &statements{DBTX: tx}
			done, err = f.engine.CompleteIn(ctx, db.Of(s), f.project,
				items.Completion{Downloader: "alice", IP: addr("192.0.2.10"), Items: names[:n]},
				items.Completion{Downloader: "alice", IP: addr("198.51.100.7"), Items: names[n : 2*n]},
				items.Completion{Downloader: "mallory", IP: addr("198.51.100.7"), Items: names[2*n:]})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []int64{int64(n), 0, 0}
		if !on {
			want[1] = int64(n)
		}
		if fmt.Sprint(done) != fmt.Sprint(want) {
			t.Fatalf("completed %v, want %v", done, want)
		}
		if sum := f.summary(t); sum.DoneOtherNetwork != int64(n) || sum.DoneNotHeld != int64(n) {
			t.Fatalf("done_other_network %d, done_not_held %d; want %d each", sum.DoneOtherNetwork, sum.DoneNotHeld, n)
		}
		return s.n
	}
	off, few, many := count(t, false, 100), count(t, true, 1), count(t, true, 100)
	t.Logf("statements: %d off, %d with 3 items, %d with 300", off, few, many)
	if few != off || many != off {
		t.Fatalf("a batch sent %d statements with the check off, %d with it on for 3 items, %d for 300: want as many", off, few, many)
	}
}
