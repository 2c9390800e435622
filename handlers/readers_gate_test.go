package handlers

import (
	"context"
	"errors"
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
