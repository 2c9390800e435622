package handlers

import (
	"net/netip"
	"sync"
	"time"

	"tracker/addrkey"
)

// strikes counts the failures of each client address in a window, in this
// process: past the limit the address is turned away until its window
// ends. An IPv6 client counts by its /64 (addrkey.Of), or it could take a
// fresh address for each try. It holds at most maxStrikeAddrs addresses,
// so a flood from many addresses cannot grow it without bound.
type strikes struct {
	limit  int
	window time.Duration
	now    func() time.Time

	mu     sync.Mutex
	byAddr map[netip.Prefix]strike
}

type strike struct {
	n     int
	since time.Time
}

const maxStrikeAddrs = 100_000

func newStrikes(limit int, window time.Duration) *strikes {
	return &strikes{limit: limit, window: window, now: time.Now, byAddr: map[netip.Prefix]strike{}}
}

// wait is how long addr is turned away for (0: it is not).
func (s *strikes) wait(addr netip.Addr) time.Duration {
	key := addrkey.Of(addr)
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.byAddr[key]
	if !ok || st.n < s.limit {
		return 0
	}
	left := st.since.Add(s.window).Sub(s.now())
	if left <= 0 {
		delete(s.byAddr, key)
		return 0
	}
	return left
}

// add counts a failure of addr.
func (s *strikes) add(addr netip.Addr) {
	key := addrkey.Of(addr)
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	st, ok := s.byAddr[key]
	if !ok || now.Sub(st.since) >= s.window {
		if !ok && len(s.byAddr) >= maxStrikeAddrs {
			s.forgetOld(now)
		}
		st = strike{since: now}
	}
	st.n++
	s.byAddr[key] = st
}

// forgetOld drops the windows that are over; if every window is still
// running, all of them: forgetting is safer than growing.
func (s *strikes) forgetOld(now time.Time) {
	for a, st := range s.byAddr {
		if now.Sub(st.since) >= s.window {
			delete(s.byAddr, a)
		}
	}
	if len(s.byAddr) >= maxStrikeAddrs {
		clear(s.byAddr)
	}
}
