package handlers

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// A read keeps its slot for at least Slots/Rate: one ending sooner gives
// it back that long after it began, so however cheap reads are, no more
// than Rate start a second. A read that takes longer gives it back at once.
func TestReadKeepsItsSlotForItsShareOfTheRate(t *testing.T) {
	ctx := context.Background()
	g := newReadGate(ReaderLimits{Slots: 1, Rate: 10, Waiting: 0}) // a read every 100 ms
	now := time.Unix(1e9, 0)
	g.now = func() time.Time { return now }
	var later func()
	var after time.Duration
	g.after = func(d time.Duration, f func()) { after, later = d, f }

	leave, err := g.enter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(30 * time.Millisecond)
	leave()
	if later == nil || after != 70*time.Millisecond {
		t.Fatalf("a read of 30 ms gave its slot back after %v (%v), want 70 ms more", after, later != nil)
	}
	if _, err := g.enter(ctx); !errors.Is(err, errReadersBusy) {
		t.Fatalf("a read while the last one holds the slot: %v, want readers-busy", err)
	}
	later()
	leave, err = g.enter(ctx)
	if err != nil {
		t.Fatalf("a read once the slot is back: %v", err)
	}
	later = nil
	now = now.Add(150 * time.Millisecond)
	leave()
	if later != nil {
		t.Fatal("a read longer than its share kept its slot")
	}
	if leave, err = g.enter(ctx); err != nil {
		t.Fatalf("a read after a long one: %v", err)
	}
	leave()
}

// kept reads a value once per ttl, keeps no failure, and holds at most
// max values.
func TestKeptReadsOncePerTTL(t *testing.T) {
	ctx := context.Background()
	c := newKept[int, string](time.Second, 4)
	now := time.Unix(1e9, 0)
	c.now = func() time.Time { return now }
	reads := 0
	read := func(v string) func(context.Context) (string, error) {
		return func(context.Context) (string, error) { reads++; return v, nil }
	}
	get := func(key int, r func(context.Context) (string, error)) string {
		t.Helper()
		v, err := c.get(ctx, key, r)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}

	if v := get(1, read("a")); v != "a" || reads != 1 {
		t.Fatalf("first get: %q after %d reads", v, reads)
	}
	now = now.Add(999 * time.Millisecond)
	if v := get(1, read("b")); v != "a" || reads != 1 {
		t.Fatalf("within the ttl: %q after %d reads, want the kept a", v, reads)
	}
	if v := get(2, read("c")); v != "c" || reads != 2 {
		t.Fatalf("another key: %q after %d reads", v, reads)
	}
	now = now.Add(time.Millisecond)
	if v := get(1, read("b")); v != "b" || reads != 3 {
		t.Fatalf("after the ttl: %q after %d reads, want b read again", v, reads)
	}

	failed := errors.New("database away")
	if _, err := c.get(ctx, 3, func(context.Context) (string, error) { return "", failed }); !errors.Is(err, failed) {
		t.Fatalf("a failed read: %v", err)
	}
	if v := get(3, read("d")); v != "d" {
		t.Fatalf("after a failed read: %q, want it read again", v)
	}

	for k := range 20 {
		get(100+k, read(fmt.Sprint(k)))
		if n := len(c.entries); n > 4 {
			t.Fatalf("%d values kept, at most 4", n)
		}
	}

	none := newKept[int, string](0, 4)
	reads = 0
	for range 3 {
		if _, err := none.get(ctx, 1, read("x")); err != nil {
			t.Fatal(err)
		}
	}
	if reads != 3 || len(none.entries) != 0 {
		t.Fatalf("a ttl of 0: %d reads for 3 gets, %d kept", reads, len(none.entries))
	}
}
