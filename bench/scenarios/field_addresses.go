package scenarios

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"sync/atomic"
	"tracker/bench/load"
)

// The field warriors' addresses. On loopback a client may leave from any
// address of 127.0.0.0/8, so each warrior has one of its own, eight to a
// /24 (customers of one provider share its networks), and the tracker sees
// them as it would in the field. Some warriors' dones leave from another
// network than their requests, which the tracker counts
// (done_other_network) and, with claimer_network, refuses:
//
//   - fieldRoaming of the warriors are behind something that maps each
//     connection to one of several networks (a carrier-grade NAT without
//     paired pooling, a cloud NAT with several addresses, a VPN changing
//     exits): each call leaves from one of fieldRoamingNets /24s, drawn
//     anew, so three dones in four come from another network than their
//     request;
//   - every other warrior keeps its address, but in fieldRenumbered of its
//     turns it is given another, in another /24, between its request and
//     its done (a dynamic address reassigned, a forced reconnection), and
//     keeps the new one.
//
// Seesaw opens a new connection for every call, so either may happen to
// any call; what share of the field does so is a guess, which is why the
// tracker counts it before anyone switches claimer_network on. A
// dual-stack warrior alternating IPv4 and IPv6 is not modelled: loopback
// has one IPv6 address.
const (
	fieldRoaming     = 0.01
	fieldRoamingNets = 4
	fieldRenumbered  = 0.002
	fieldPerNetwork  = 8
)

// fieldAddresses are a warrior's addresses: where it is now, and for a
// roaming warrior the networks its calls leave from.
type fieldAddresses struct {
	now     netip.Addr
	roaming []netip.Addr
	clients map[netip.Addr]*http.Client
}

// renumbered counts the addresses given to renumbered warriors: each a
// /24 of its own, past every warrior's first.
var renumbered atomic.Int64

// homeAddress is warrior i's first address: 127.16.0.1 and on, eight to a
// /24.
func homeAddress(i int) netip.Addr {
	k := i / fieldPerNetwork
	return netip.AddrFrom4([4]byte{127, byte(16 + k>>8), byte(k), byte(1 + i%fieldPerNetwork)})
}

// newFieldAddresses gives warrior i its addresses, roaming or not.
func newFieldAddresses(i int, roaming bool) fieldAddresses {
	a := fieldAddresses{now: homeAddress(i), clients: map[netip.Addr]*http.Client{}}
	if roaming {
		a.roaming = []netip.Addr{a.now}
		for m := 1; m < fieldRoamingNets; m++ {
			a.roaming = append(a.roaming, netip.AddrFrom4([4]byte{127, byte(128 + m), byte(i >> 8), byte(1 + i%254)}))
		}
	}
	return a
}

// client is the warrior's keep-alive client leaving from its address now.
func (a *fieldAddresses) client() *http.Client {
	c, ok := a.clients[a.now]
	if !ok {
		c = load.BoundClient(a.now)
		a.clients[a.now] = c
	}
	return c
}

// move is the warrior between two calls: a roaming one leaves from any of
// its networks, another is renumbered now and then. It says whether the
// address is in another /24 than before.
func (a *fieldAddresses) move() bool {
	before := a.now
	switch {
	case a.roaming != nil:
		a.now = a.roaming[rand.IntN(len(a.roaming))]
	case rand.Float64() < fieldRenumbered:
		if c, ok := a.clients[a.now]; ok {
			c.CloseIdleConnections()
			delete(a.clients, a.now)
		}
		r := renumbered.Add(1)
		a.now = netip.AddrFrom4([4]byte{127, byte(64 + r>>8), byte(r), 1})
	}
	p, _ := before.Prefix(24)
	return !p.Contains(a.now)
}

// close closes the warrior's idle connections.
func (a *fieldAddresses) close() {
	for _, c := range a.clients {
		c.CloseIdleConnections()
	}
}

// fieldOtherNetwork reads the field project's counters: its completions,
// and the items done under their holder's nick from another network.
func (b *bench) fieldOtherNetwork(ctx context.Context) (done, away int64, err error) {
	err = b.pool.QueryRow(ctx, `SELECT coalesce(sum(c.value) FILTER (WHERE c.name = 'done'), 0)::bigint,
		       coalesce(sum(c.value) FILTER (WHERE c.name = 'done_other_network'), 0)::bigint
		FROM counters c JOIN projects p ON p.id = c.project_id WHERE p.slug = $1`, fieldProject).Scan(&done, &away)
	return done, away, err
}

// fieldAddressReport prints what the warriors reported from another
// network than their requests' and what the tracker counted.
func (f *fieldRun) fieldAddressReport(ctx context.Context, b *bench, roaming int) error {
	done, away, err := b.fieldOtherNetwork(ctx)
	if err != nil {
		return err
	}
	share := 0.0
	if done > 0 {
		share = 100 * float64(away) / float64(done)
	}
	verdict := "taken (claimer_network off)"
	if b.o.FieldClaimerNetwork {
		verdict = "refused (claimer_network on): their claims stay out until they run out, and the items are handed out again"
	}
	fmt.Printf("Completions from another network: %d warriors roam over %d /24s and %d renumberings moved a warrior to another /24 between its request and its done; the warriors reported %d items done from another /24 than their request's. The tracker counted %d items done from another network than their claim's (`tracker_project_other_network_total{action=\"done\"}`) of %d completions: %.2f %%, %s.\n",
		roaming, fieldRoamingNets, renumbered.Load(), f.away.Load(), away, done, share, verdict)
	return nil
}
