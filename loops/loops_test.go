package loops_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"tracker/loops"
)

// Stop ends every loop and waits for it; nothing starts after.
func TestGroupStopWaits(t *testing.T) {
	t.Parallel()
	g := loops.NewGroup(context.Background())
	var running, ended atomic.Int32
	started := make(chan struct{}, 3)
	for range 3 {
		if !g.Go(func(ctx context.Context) {
			running.Add(1)
			started <- struct{}{}
			<-ctx.Done()
			ended.Add(1)
		}) {
			t.Fatal("a live group refused a loop")
		}
	}
	for range 3 {
		<-started
	}
	g.Stop()
	if ended.Load() != 3 {
		t.Fatalf("Stop returned with %d of 3 loops ended", ended.Load())
	}
	if g.Go(func(context.Context) { running.Add(1) }) {
		t.Fatal("a stopped group started a loop")
	}
	if running.Load() != 3 {
		t.Fatalf("%d loops ran", running.Load())
	}
}

// Every calls at once, then on each tick, until its function says stop or
// its context ends.
func TestEvery(t *testing.T) {
	t.Parallel()
	calls := 0
	loops.Every(context.Background(), time.Millisecond, func(context.Context) bool {
		calls++
		return calls < 3
	})
	if calls != 3 {
		t.Fatalf("%d calls, want 3: the third said stop", calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	loops.Every(ctx, time.Hour, func(context.Context) bool {
		t.Fatal("called with its context ended")
		return false
	})
	ctx, cancel = context.WithCancel(context.Background())
	calls = 0
	loops.Every(ctx, time.Hour, func(context.Context) bool {
		calls++
		cancel() // the context ends during the call: no wait for the hour
		return true
	})
	if calls != 1 {
		t.Fatalf("%d calls after the context ended in the first", calls)
	}
}
