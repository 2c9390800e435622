// Package loops runs the tracker's background loops: the boards' and the
// live logs' refreshes, the job runner's schedules. A Group starts loops
// until it is stopped, and Stop ends them all and waits for them, so a
// loop never outlives what it reads from (the pool closes after). It
// imports no other package of the tracker.
package loops

import (
	"context"
	"sync"
	"time"
)

// Group is loops started until Stop. The zero Group is not ready: use
// NewGroup or Start.
type Group struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// mu orders Go's check with Stop's cancel: no loop is added once Stop
	// waits (a WaitGroup must not be added to while it is waited on).
	mu sync.Mutex
}

// NewGroup is a Group whose loops see parent's end as their own.
func NewGroup(parent context.Context) *Group {
	ctx, cancel := context.WithCancel(parent)
	return &Group{ctx: ctx, cancel: cancel}
}

// Go runs f in a loop of the group, its context ending at Stop, and
// reports whether it did: after Stop it starts nothing.
func (g *Group) Go(f func(ctx context.Context)) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ctx.Err() != nil {
		return false
	}
	g.wg.Go(func() { f(g.ctx) })
	return true
}

// Context ends at Stop.
func (g *Group) Context() context.Context { return g.ctx }

// Stop ends every loop's context and waits for them to return.
func (g *Group) Stop() {
	g.mu.Lock()
	g.cancel()
	g.mu.Unlock()
	g.wg.Wait()
}

// Every calls f at once and then every d, until ctx ends or f returns
// false. A call that takes longer than d is followed by the next at once,
// never by several.
func Every(ctx context.Context, d time.Duration, f func(ctx context.Context) bool) {
	ticker := time.NewTicker(d)
	defer ticker.Stop()
	for ctx.Err() == nil && f(ctx) {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}
