package handlers

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// A read keeps its slot for at least Slots/Rate, and for readerRest times
// as long as it took: a quick one gives it back that long after it began, a
// slow one rests the longer; meanwhile the next read finds no slot.
func TestReadKeepsItsSlotForItsShareOfTheRate(t *testing.T) {
	ctx := context.Background()
	g := newReadGate(ReaderLimits{Slots: 1, Rate: 10, Waiting: 0}) // a read every 100 ms
	now := time.Unix(1e9, 0)
	g.now = func() time.Time { return now }
	var later func()
	var after time.Duration
	g.after = func(d time.Duration, f func()) { after, later = d, f }
	read := func(took, rest time.Duration) {
		t.Helper()
		leave, err := g.enter(ctx)
		if err != nil {
			t.Fatalf("a read with the slot free: %v", err)
		}
		later = nil
		now = now.Add(took)
		leave()
		if later == nil || after != rest {
			t.Fatalf("a read of %v gave its slot back %v later (%v), want %v", took, after, later != nil, rest)
		}
		if _, err := g.enter(ctx); !errors.Is(err, errReadersBusy) {
			t.Fatalf("a read while the last one holds the slot: %v, want readers-busy", err)
		}
		later()
	}
	read(5*time.Millisecond, 95*time.Millisecond)     // the rate's 100 ms
	read(30*time.Millisecond, 210*time.Millisecond)   // 8 × 30 ms
	read(150*time.Millisecond, 1050*time.Millisecond) // 8 × 150 ms

	// Without a rate a slot is given back as the read ends.
	free := newReadGate(ReaderLimits{Slots: 1, Waiting: 0})
	free.after = func(time.Duration, func()) { t.Fatal("a gate without a rate held a slot on") }
	for range 3 {
		leave, err := free.enter(ctx)
		if err != nil {
			t.Fatal(err)
		}
		leave()
	}
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
