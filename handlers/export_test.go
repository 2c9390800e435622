package handlers

import "time"

// TakeReaderSlots takes every slot of the read routes, as reads in flight
// would, and returns what gives them back.
func (h *Handler) TakeReaderSlots() func() {
	n := cap(h.reads.gate.slots)
	for range n {
		h.reads.gate.slots <- struct{}{}
	}
	return func() {
		for range n {
			<-h.reads.gate.slots
		}
	}
}

// ReadersWaiting is how many reads wait for a slot.
func (h *Handler) ReadersWaiting() int64 { return h.reads.gate.waiting.Load() }

// UnrateReaders lifts the read routes' rate: a read gives its slot back as
// soon as it is answered. Tests read page after page, and under the rate
// each read would keep its slot eight times as long as it took: on a busy
// machine the next read could wait past its second and be refused.
func (h *Handler) UnrateReaders() {
	l := DefaultReaderLimits
	l.Rate = 0
	h.reads.gate = newReadGate(l)
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
