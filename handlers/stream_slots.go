package handlers

import (
	"net/netip"
	"sync"
	"time"

	"tracker/addrkey"
)

// StreamLimits bound the live event streams, which each hold a connection
// for as long as a page is open: without a bound, held-open streams would
// fill the server's connections and warriors would wait behind them.
type StreamLimits struct {
	// Total is the most streams open at once in this process.
	Total int
	// PerAddress is the most one client address holds open (an IPv6
	// client: its /64, see addrkey).
	PerAddress int
	// Lifetime is how long a stream lasts; then it ends and the browser
	// reconnects (and resyncs), so no client holds a slot for ever.
	Lifetime time.Duration
}

// DefaultStreamLimits leave most of the 10,000 connections a process takes
// to everything else.
var DefaultStreamLimits = StreamLimits{Total: 1000, PerAddress: 8, Lifetime: 10 * time.Minute}

// streamSlots counts the open streams, in total and by client network
// (addrkey.Of).
type streamSlots struct {
	mu     sync.Mutex
	limits StreamLimits
	open   int
	byAddr map[netip.Prefix]int
}

// take reserves a slot for a stream from addr, or says there is none.
func (s *streamSlots) take(addr netip.Addr) (time.Duration, bool) {
	key := addrkey.Of(addr)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open >= s.limits.Total || s.byAddr[key] >= s.limits.PerAddress {
		return 0, false
	}
	if s.byAddr == nil {
		s.byAddr = map[netip.Prefix]int{}
	}
	s.open++
	s.byAddr[key]++
	return s.limits.Lifetime, true
}

// give returns the slot of a stream from addr that ended.
func (s *streamSlots) give(addr netip.Addr) {
	key := addrkey.Of(addr)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.open--
	if s.byAddr[key]--; s.byAddr[key] <= 0 {
		delete(s.byAddr, key)
	}
}
