// Package addrkey says what the per-address limits count a client by:
// warrior registrations, the sign-in throttle, live event streams,
// backfeed key strikes and the expired-claims limit all key on Of, so a
// client gets the same allowance whichever of them it meets.
package addrkey

import "net/netip"

// Of is the network the per-address limits count a's requests under: an
// IPv4 address on its own, an IPv6 address by its /64. A subscriber is
// given at least a /64 and may use any address in it, so counting IPv6
// addresses one by one would give one client 2^64 allowances. An
// IPv4-mapped IPv6 address counts as its IPv4 address. The zero Addr (the
// address is unknown) is the zero Prefix: every unknown client shares it.
func Of(a netip.Addr) netip.Prefix {
	if !a.IsValid() {
		return netip.Prefix{}
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return netip.PrefixFrom(a, 32)
	}
	p, _ := a.Prefix(64) // cannot fail: 64 bits of a valid IPv6 address
	return p
}
