package addrkey

import (
	"net/netip"
	"testing"
)

func TestOf(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"192.0.2.1", "192.0.2.1/32"},
		{"::ffff:192.0.2.1", "192.0.2.1/32"},
		{"2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"},
		{"2001:db8:1:2::1", "2001:db8:1:2::/64"},
		{"fe80::1%eth0", "fe80::/64"},
	} {
		if got := Of(netip.MustParseAddr(c.a)); got.String() != c.b {
			t.Errorf("Of(%s) = %s, want %s", c.a, got, c.b)
		}
	}
	if Of(netip.Addr{}) != (netip.Prefix{}) {
		t.Error("the unknown address has a key of its own")
	}
	// Two addresses of one /64 share a key; of two /64s, or two IPv4
	// neighbours, do not.
	same := func(a, b string) bool { return Of(netip.MustParseAddr(a)) == Of(netip.MustParseAddr(b)) }
	if !same("2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff") {
		t.Error("two addresses of one /64 counted apart")
	}
	if same("2001:db8:1:2::1", "2001:db8:1:3::1") || same("192.0.2.1", "192.0.2.2") {
		t.Error("two networks counted as one")
	}
	if !same("::ffff:192.0.2.1", "192.0.2.1") {
		t.Error("an IPv4-mapped address counted apart from its IPv4 address")
	}
}
