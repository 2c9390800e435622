package handlers

import (
	"crypto/tls"
	"net"
	"net/http"
	"strings"
	"time"

	"tracker/conns"
)

// The server's timeouts: a slow or stalled client must not hold a
// connection and its goroutine forever. Warriors time out after 20 s
// themselves.
const (
	ReadHeaderTimeout = 10 * time.Second
	// ReadTimeout bounds reading a request, its body included.
	ReadTimeout = 60 * time.Second
	// WriteTimeout bounds an answer from the end of its request's head.
	// A body that stops coming fails when ReadTimeout passes, about when
	// this does: its refusal gets a moment of its own (serveError).
	WriteTimeout = 60 * time.Second
	IdleTimeout  = 120 * time.Second
	// MaxHeaderBytes bounds a request's head.
	MaxHeaderBytes = 64 << 10
	// refusalGrace is what the refusal of a body that stopped coming has
	// to be written in.
	refusalGrace = 5 * time.Second
)

// DefaultConnLimits are the connections a server holds (conns.Limits):
// 10,000 in all; 256 of one client address, enough for a host running
// dozens of warriors, or a network behind one address; the last 500
// kept for the warrior routes.
var DefaultConnLimits = conns.Limits{Total: 10_000, PerAddress: 256, Reserve: 500}

// Listen accounts the connections of inner by limits (conns.Listener),
// trusted proxies counted in the total only: their clients are held to
// their share by request (see realClient; Config.TrustedProxies names
// them). The metrics report its connections.
func (h *Handler) Listen(inner net.Listener, limits conns.Limits) *conns.Listener {
	return h.listen(inner, limits, nil)
}

// ListenTLS is Listen for a listener that speaks TLS by cfg
// (conns.ListenTLS); its server's TLSConfig is cfg too, for HTTP/2.
func (h *Handler) ListenTLS(inner net.Listener, limits conns.Limits, cfg *tls.Config) *conns.Listener {
	return h.listen(inner, limits, cfg)
}

func (h *Handler) listen(inner net.Listener, limits conns.Limits, cfg *tls.Config) *conns.Listener {
	limits.Exempt = h.trusted
	h.proxied = conns.NewInFlight(limits.PerAddress)
	var l *conns.Listener
	if cfg != nil {
		l = conns.ListenTLS(inner, limits, cfg)
	} else {
		l = conns.Listen(inner, limits)
	}
	h.listeners.add(l)
	return l
}

// Server is the HTTP server of the routes on l (made by Listen).
func (h *Handler) Server(l *conns.Listener) *http.Server {
	srv := &http.Server{
		Handler:           h.Routes(),
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		ConnState:         l.ConnState,
		ConnContext:       l.ConnContext,
	}
	srv.RegisterOnShutdown(h.EndStreams) // live streams would hold the shutdown up
	return srv
}

// BesideTLS serves, on the plain-HTTP listener of a tracker that serves
// TLS too, what warriors and grab scripts call (forWarriors), which take
// no redirect, and the warrior HQ's project list; every other request is
// redirected to the same address over HTTPS with 308, which keeps the
// method and body. The admin API is refused there, not redirected: its
// token has crossed the network in the clear by then, and a client that
// follows the redirect would never learn it sends it so. httpsPort is the
// TLS listener's port ("" or "443": none in the address).
func (h *Handler) BesideTLS(next http.Handler, httpsPort string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if forWarriors(r) || r.URL.Path == "/projects.json" {
			next.ServeHTTP(w, r)
			return
		}
		if strings.HasPrefix(r.URL.Path, apiPrefix) {
			writeErrorFor(w, r, errorf(http.StatusForbidden, "https-required",
				"the admin API is served over HTTPS only; a token sent over plain HTTP should be revoked"))
			return
		}
		host := r.Host
		if hostname, _, err := net.SplitHostPort(host); err == nil {
			host = hostname
		}
		if strings.Contains(host, ":") {
			host = "[" + host + "]" // an IPv6 address
		}
		if httpsPort != "" && httpsPort != "443" {
			host = net.JoinHostPort(strings.Trim(host, "[]"), httpsPort)
		}
		if host == "" || strings.ContainsAny(host, "/\\?#@") {
			writeError(w, errorf(http.StatusBadRequest, "invalid-host", "no host to send the request to over HTTPS"))
			return
		}
		http.Redirect(w, r, "https://"+host+r.URL.RequestURI(), http.StatusPermanentRedirect)
	})
}
