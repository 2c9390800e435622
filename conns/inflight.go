package conns

import (
	"net/netip"
	"sync"

	"tracker/addrkey"
)

// InFlight counts the requests each client address has in flight. The
// clients of a trusted reverse proxy share its connections, so they are
// held to their share by request instead of by connection.
type InFlight struct {
	limit int
	mu    sync.Mutex
	n     map[netip.Prefix]int
}

// NewInFlight lets each address (addrkey.Of) have limit requests in
// flight.
func NewInFlight(limit int) *InFlight {
	return &InFlight{limit: limit, n: map[netip.Prefix]int{}}
}

// Enter counts a request of a in, unless a has its share in flight; leave
// counts it out.
func (f *InFlight) Enter(a netip.Addr) (leave func(), ok bool) {
	key := addrkey.Of(a)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n[key] >= f.limit {
		return nil, false
	}
	f.n[key]++
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.n[key]--; f.n[key] == 0 {
			delete(f.n, key)
		}
	}, true
}
