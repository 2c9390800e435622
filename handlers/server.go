package handlers

import (
	"net"
	"net/http"
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
// their share by request (see realClient). Call it once, after
// SetTrustedProxies; the metrics report its connections.
func (h *Handler) Listen(inner net.Listener, limits conns.Limits) *conns.Listener {
	limits.Exempt = h.trusted
	h.proxied = conns.NewInFlight(limits.PerAddress)
	l := conns.Listen(inner, limits)
	h.metrics.registry.MustRegister(connCollector{l})
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
