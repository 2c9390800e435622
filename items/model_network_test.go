package items_test

import (
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"

	"pgregory.net/rapid"

	"tracker/items"
	"tracker/projects"
)

// The model test's addresses and claimer_network: each nick calls from
// an address, first its home one; a step moves it to another (in its
// network, in another, of the other family), so its dones and releases
// may come from elsewhere than its claims; a stranger sends dones and
// releases under a holder's nick; a release naming no downloader (an item
// a grab script turned down) comes from a holder or a stranger; and
// claimer_network is switched on and off at any moment, claims out
// included.

// modelAddrs are the addresses each nick may call from, its home first:
// one in the same network, one in another, one of the other family (one
// of bob's is in alice's network).
var modelAddrs = map[string][]string{
	"alice":   {"192.0.2.10", "192.0.2.77", "192.0.3.10", "2001:db8:a::1"},
	"bob":     {"2001:db8:1:2::10", "2001:db8:1:ffff::1", "2001:db8:2::10", "192.0.2.200"},
	"carol":   {"198.51.100.10", "198.51.100.99", "198.51.101.10", "2001:db8:c::1"},
	"drainer": {"203.0.113.10"},
}

// strangerAddr is where a stranger sends others' nicks from: in nobody's
// network.
const strangerAddr = "100.64.7.7"

// addr is where nick calls from now.
func (w *modelWorld) addr(nick string) string {
	if a, ok := w.at[nick]; ok {
		return a
	}
	return modelAddrs[nick][0]
}

// ip is addr as the engine takes it.
func (w *modelWorld) ip(nick string) netip.Addr {
	return netip.MustParseAddr(w.addr(nick))
}

// netOf is the network of address a as claimer_network compares them: its
// /24 for IPv4, its /48 for IPv6; "" for no address.
func netOf(a string) string {
	if a == "" {
		return ""
	}
	ip := netip.MustParseAddr(a)
	bits := 48
	if ip.Is4() {
		bits = 24
	}
	p, err := ip.Prefix(bits)
	if err != nil {
		panic(err)
	}
	return p.String()
}

// near says whether a done or release from address from counts for a
// claim made from network net under cfg: always without claimer_network,
// and when either address is unknown.
func near(cfg projects.Config, from, net string) bool {
	return !cfg.ClaimerNetwork || from == "" || net == "" || netOf(from) == net
}

// roam moves a nick to another of its addresses: its later calls come from
// there, its claims keep where they were made from.
func (w *modelWorld) roam(rt *rapid.T) {
	nick := rapid.SampledFrom(modelNicks).Draw(rt, "nick")
	if w.at == nil {
		w.at = map[string]string{}
	}
	w.at[nick] = rapid.SampledFrom(modelAddrs[nick]).Draw(rt, "address")
}

// impostor sends a done from a stranger's address under a nick that holds
// (or held last) some items: without claimer_network in the process's
// view it completes them as the nick's own would, with it nothing.
func (w *modelWorld) impostor(rt *rapid.T) {
	pr := w.proc(rt)
	nick := rapid.SampledFrom(modelNicks).Draw(rt, "nick")
	var held []string
	for _, key := range slices.Sorted(maps.Keys(w.items)) {
		if it := w.items[key]; (it.where == mOut && it.holder == nick) || it.last == nick {
			held = append(held, it.name)
		}
	}
	if len(held) == 0 {
		rt.Skip("nothing held")
	}
	names := rapid.SliceOfNDistinct(rapid.SampledFrom(held), 1, len(held), rapid.ID[string]).Draw(rt, "items")
	if _, err := pr.engine.Complete(w.ctx, pr.live.Project, items.Completion{
		Downloader: nick, Version: "1", Items: names, Bytes: map[string]int64{"data": 1}, IP: netip.MustParseAddr(strangerAddr),
	}); err != nil {
		rt.Fatalf("a stranger's done as %s: %v", nick, err)
	}
	w.completed(rt, pr.live.Config, nick, strangerAddr, names, nil, nil)
}

// impostorRelease sends a release from a stranger's address under the
// nick of an item's holder: refused with claimer_network in the process's
// view, taken without.
func (w *modelWorld) impostorRelease(rt *rapid.T) {
	pr := w.proc(rt)
	var out []string
	for _, key := range slices.Sorted(maps.Keys(w.items)) {
		if w.items[key].where == mOut && w.items[key].holder != "admin" {
			out = append(out, key)
		}
	}
	if len(out) == 0 {
		rt.Skip("nothing out")
	}
	it := w.items[rapid.SampledFrom(out).Draw(rt, "item")]
	_, err := pr.engine.ReleaseFrom(w.ctx, pr.live.Project, []string{it.name}, it.holder, netip.MustParseAddr(strangerAddr))
	if !near(pr.live.Config, strangerAddr, it.net) {
		if !errors.Is(err, items.ErrNotHeld) {
			rt.Fatalf("a stranger released %s as %s with claimer_network on: %v", it.name, it.holder, err)
		}
		return
	}
	if err != nil {
		rt.Fatalf("a stranger's release of %s as %s, claimer_network off: %v", it.name, it.holder, err)
	}
	it.where, it.last, it.lastNet, it.holder, it.expired = mQueued, it.holder, it.net, "", false
}

// claimerNetwork switches claimer_network, whatever is out.
func (w *modelWorld) claimerNetwork(rt *rapid.T) {
	w.set(rt, fmt.Sprintf("claimer_network=%v", rapid.Bool().Draw(rt, "on")))
}

// rejectedRelease sends a release naming no downloader, as a grab script
// turning an item down may, from where a nick calls now or from a
// stranger's address: it gives the item back when made from the network
// the item was claimed from, claimer_network or not, and else nothing.
func (w *modelWorld) rejectedRelease(rt *rapid.T) {
	pr := w.proc(rt)
	var out []string
	for _, key := range slices.Sorted(maps.Keys(w.items)) {
		if w.items[key].where == mOut {
			out = append(out, key)
		}
	}
	if len(out) == 0 {
		rt.Skip("nothing out")
	}
	it := w.items[rapid.SampledFrom(out).Draw(rt, "item")]
	from := strangerAddr
	if caller := rapid.SampledFrom(append(slices.Clone(modelNicks), "")).Draw(rt, "caller"); caller != "" {
		from = w.addr(caller)
	}
	released, err := pr.engine.ReleaseOwn(w.ctx, pr.live.Project, []string{it.name}, netip.MustParseAddr(from))
	if it.net == "" || netOf(from) != it.net {
		if !errors.Is(err, items.ErrNotHeld) {
			rt.Fatalf("a release of %s without downloader from %s, claimed from %q: %v, %v", it.name, from, it.net, released, err)
		}
		return
	}
	if err != nil || len(released) != 1 {
		rt.Fatalf("a release of %s without downloader from its network: %v, %v", it.name, released, err)
	}
	it.where, it.last, it.lastNet, it.holder, it.expired = mQueued, it.holder, it.net, "", false
}
