package handlers

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
