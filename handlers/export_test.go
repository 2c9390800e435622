package handlers

import (
	"sync"
	"time"
)

// TakeReaderSlots takes every slot of the read routes, as reads in flight
// would, and returns what gives them back.
func (h *Handler) TakeReaderSlots() func() { return takeSlots(h.reads.gate) }

// TakeAdminSlots takes every slot of the admin panel's pages, as pages in
// flight would, and returns what gives them back; TakeBulkSlots those of
// its bulk changes.
func (h *Handler) TakeAdminSlots() func() { return takeSlots(h.adm.gate) }
func (h *Handler) TakeBulkSlots() func()  { return takeSlots(h.adm.bulk) }

func takeSlots(g *readGate) func() {
	n := cap(g.slots)
	for range n {
		g.slots <- struct{}{}
	}
	return func() {
		for range n {
			<-g.slots
		}
	}
}

// ReadersWaiting is how many reads wait for a slot.
func (h *Handler) ReadersWaiting() int64 { return h.reads.gate.waiting.Load() }

// HoldReaderSlots stops the read routes' clock (every read takes no time)
// and keeps the slots reads give back until release, which gives them back
// and says how long they were held in all: the rests of the reads, and
// what reads owed for their size. It is called before the server starts.
func (h *Handler) HoldReaderSlots() (release func() time.Duration) {
	g := h.reads.gate
	now := time.Now()
	g.now = func() time.Time { return now }
	var mu sync.Mutex
	var pending []func()
	var held time.Duration
	g.after = func(d time.Duration, f func()) {
		mu.Lock()
		defer mu.Unlock()
		held += d
		pending = append(pending, f)
	}
	return func() time.Duration {
		for {
			mu.Lock()
			if len(pending) == 0 {
				d := held
				held = 0
				mu.Unlock()
				return d
			}
			f := pending[0]
			pending = pending[1:]
			mu.Unlock()
			f()
		}
	}
}

// LimitBodies gives each kind of route a body budget of size bytes, waited
// for at most wait.
func (h *Handler) LimitBodies(size int64, wait time.Duration) {
	h.bodies = bodyBudgets{backfeed: newBodyBudget(size, wait), warrior: newBodyBudget(size, wait), admin: newBodyBudget(size, wait)}
}

// BodiesWaiting is how many requests wait for their share of a body
// budget, BodiesHeld how many bytes the budgets have reserved.
func (h *Handler) BodiesWaiting() int64 {
	return h.bodies.backfeed.waiting.Load() + h.bodies.warrior.waiting.Load() + h.bodies.admin.waiting.Load()
}

func (h *Handler) BodiesHeld() int64 {
	return h.bodies.backfeed.held.Load() + h.bodies.warrior.held.Load() + h.bodies.admin.held.Load()
}

// APIPatterns are the admin API's route patterns, its document's too.
func (h *Handler) APIPatterns() []string {
	ps := []string{"GET /api/v1/openapi.json", "GET /api/v1/openapi.yaml"}
	for _, rt := range h.apiRoutes() {
		ps = append(ps, rt.pattern)
	}
	return ps
}
