package handlers

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"tracker/conns"
)

func TestRealClient(t *testing.T) {
	trusted, err := ParseTrustedProxies("10.0.0.0/8, 192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	h := &Handler{trusted: trusted, proxied: conns.NewInFlight(DefaultConnLimits.PerAddress)}
	for _, c := range []struct {
		name, peer, xff, realIP, proto string
		client                         string
		tls                            bool
	}{
		{"no proxy", "198.51.100.7:5000", "", "", "", "198.51.100.7", false},
		{"a stranger's headers are ignored", "198.51.100.7:5000", "203.0.113.9", "203.0.113.8", "https", "198.51.100.7", false},
		{"a trusted proxy names the client", "192.0.2.1:5000", "203.0.113.9", "", "https", "203.0.113.9", true},
		{"the rightmost untrusted hop wins", "10.1.2.3:5000", "1.2.3.4, 203.0.113.9, 10.0.0.5", "", "", "203.0.113.9", false},
		{"X-Real-IP when there is no X-Forwarded-For", "192.0.2.1:5000", "", "203.0.113.7", "", "203.0.113.7", false},
		{"an unreadable hop: the proxy itself", "192.0.2.1:5000", "203.0.113.9, garbage", "", "", "192.0.2.1", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = c.peer
			if c.xff != "" {
				r.Header.Set("X-Forwarded-For", c.xff)
			}
			if c.realIP != "" {
				r.Header.Set("X-Real-IP", c.realIP)
			}
			if c.proto != "" {
				r.Header.Set("X-Forwarded-Proto", c.proto)
			}
			var got netip.Addr
			var tls bool
			h.realClient(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
				got, tls = clientIP(r), overTLS(r)
			})).ServeHTTP(httptest.NewRecorder(), r)
			if got.String() != c.client || tls != c.tls {
				t.Fatalf("client %s over TLS %v, want %s %v", got, tls, c.client, c.tls)
			}
		})
	}
	if _, err := ParseTrustedProxies("10.0.0.0/8,nonsense"); err == nil {
		t.Fatal("a bad address accepted")
	}
}

// Behind a trusted proxy that says TLS, the admin's cookie is Secure.
func TestSecureCookieBehindTrustedProxy(t *testing.T) {
	h := &Handler{trusted: []netip.Prefix{netip.MustParsePrefix("192.0.2.1/32")}}
	h.sessions = newSessions(nil)
	r := httptest.NewRequest("GET", "/admin/login", nil)
	r.RemoteAddr = "192.0.2.1:5000"
	r.Header.Set("X-Forwarded-Proto", "https")
	h.realClient(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		if h.sessions.of(r) != h.sessions.secure {
			t.Error("a trusted proxy's TLS: the plain cookie")
		}
	})).ServeHTTP(httptest.NewRecorder(), r)
}
