package conns

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"time"
)

// handshakeTimeout bounds a TLS handshake: a client that starts one and
// stops must not hold its connection.
const handshakeTimeout = 10 * time.Second

// ListenTLS is Listen for connections that speak TLS by cfg. The listener
// makes each handshake itself, so that what it accounts and answers is
// the plain HTTP inside: a connection that chose HTTP/1.1 is handed to the
// server as a Conn that reads and writes through the TLS, whose answers of
// Go's server's own get their reason as on plain HTTP and which Readopt
// hands back (its requests carry the TLS state: TLS); one that chose
// HTTP/2 is handed over as the *tls.Conn, which Go's server serves as
// HTTP/2 when its TLSConfig offers "h2".
func ListenTLS(inner net.Listener, limits Limits, cfg *tls.Config) *Listener {
	return listen(inner, limits, cfg)
}

func (l *Listener) handshake(c *Conn) {
	tc := tls.Server(c, l.tls)
	ctx, cancel := context.WithTimeout(context.Background(), handshakeTimeout)
	defer cancel()
	if err := tc.HandshakeContext(ctx); err != nil {
		c.Close()
		return
	}
	state := tc.ConnectionState()
	if state.NegotiatedProtocol == "h2" {
		l.hand(tc)
		return
	}
	l.hand(&Conn{Conn: tc, rec: c.rec, tls: &state})
}

// TLS is the TLS state of the connection, nil when it is plain: set it as
// the request's TLS, which Go's server sets only on connections it made
// the handshake of.
func (c *Conn) TLS() *tls.ConnectionState { return c.tls }

// refuseTLS answers a connection of a TLS listener turned away: the
// refusal goes inside a handshake, or a client could not read it.
func (l *Listener) refuseTLS(c net.Conn) {
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	tc := tls.Server(c, l.tls)
	if err := tc.Handshake(); err != nil || tc.ConnectionState().NegotiatedProtocol == "h2" {
		c.Close() // an HTTP/2 client gets no HTTP/1.1 answer
		return
	}
	if _, err := io.WriteString(tc, refusal); err != nil {
		c.Close()
		return
	}
	_ = tc.CloseWrite()
	CloseGently(c, tc)
}
