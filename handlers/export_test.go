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
