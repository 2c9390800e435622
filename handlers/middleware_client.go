package handlers

import (
	"net"
	"net/http"
	"net/netip"
	"strings"

	"tracker/conns"
)

// ParseTrustedProxies reads "CIDR,CIDR,..." (a bare address is one host).
func ParseTrustedProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "/") {
			a, err := netip.ParseAddr(part)
			if err != nil {
				return nil, err
			}
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, err
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// realClient sets a request's remote address to its client's: the peer
// itself, or, when the peer is a trusted proxy, the rightmost address of
// X-Forwarded-For that is not a trusted proxy (the nearest client no
// trusted proxy vouches for; addresses further left may be made up), else
// X-Real-IP. Blocks, rate limits, sign-in throttles, warrior records,
// completions and the audit log all read the address from there; the
// per-address limits count it by addrkey.Of (an IPv6 client by its /64).
func (h *Handler) realClient(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil {
			// The listener made the TLS of an HTTP/1.1 connection
			// itself (conns.ListenTLS): Go's server does not know of it.
			if c := conns.Of(r.Context()); c != nil {
				r.TLS = c.TLS()
			}
		}
		peer := clientIP(r)
		if !h.isTrusted(peer) {
			r.Header.Del("X-Forwarded-For")
			r.Header.Del("X-Real-IP")
			r.Header.Del("X-Forwarded-Proto")
			next.ServeHTTP(w, r)
			return
		}
		client, ok := h.forwardedFor(r)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		r.RemoteAddr = net.JoinHostPort(client.String(), "0")
		// The proxy's connections carry many clients: each is held to its
		// share of the server by the requests it has in flight, as a
		// client that comes directly is by its connections.
		leave, ok := h.proxied.Enter(client)
		if !ok {
			writeErrorFor(w, r, &Error{Status: http.StatusServiceUnavailable, Reason: "too-many-connections", RetryAfter: 10,
				Msg: "this address has as many requests in flight as it may; wait for their answers"})
			return
		}
		defer leave()
		next.ServeHTTP(w, r)
	})
}

func (h *Handler) isTrusted(a netip.Addr) bool {
	for _, p := range h.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// forwardedFor is the client a trusted proxy names.
func (h *Handler) forwardedFor(r *http.Request) (netip.Addr, bool) {
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(v, ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return netip.Addr{}, false // a hop we cannot read: trust nothing left of it
		}
		if a = a.Unmap(); !h.isTrusted(a) {
			return a, true
		}
	}
	if a, err := netip.ParseAddr(strings.TrimSpace(r.Header.Get("X-Real-IP"))); err == nil {
		return a.Unmap(), true
	}
	return netip.Addr{}, false
}
