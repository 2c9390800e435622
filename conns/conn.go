package conns

import (
	"bufio"
	"bytes"
	"container/list"
	"crypto/tls"
	"io"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"time"
)

// Conn is a connection a Listener let in.
type Conn struct {
	net.Conn
	rec *record
	// prefix are bytes read off the connection before it was handed back
	// (Readopt): they are read first.
	prefix []byte
	// tls is the state of the TLS the connection speaks through (nil:
	// plain), which Conn wraps (ListenTLS).
	tls *tls.ConnectionState
}

// record is what the listener keeps of a connection, shared by the Conns
// it is handed out as (Readopt makes a new one of the same connection).
type record struct {
	l       *Listener
	conn    net.Conn // the connection itself, which closeConn closes
	key     netip.Prefix
	addr    *address
	reserve bool
	// idle and addrIdle are its places in the idle lists, nil while
	// not idle; gone is set when it closed. All three under l.mu.
	idle, addrIdle *list.Element
	gone           bool
	once           sync.Once
}

func (r *record) closeConn() error {
	err := net.ErrClosed
	r.once.Do(func() {
		err = r.conn.Close()
		l := r.l
		l.mu.Lock()
		l.unidle(r)
		r.gone = true
		l.open--
		if r.addr.open--; r.addr.open == 0 {
			delete(l.byAddr, r.key)
		}
		l.room.Signal()
		l.mu.Unlock()
	})
	return err
}

// Close closes the connection and gives its place back.
func (c *Conn) Close() error { return c.rec.closeConn() }

func (c *Conn) Read(p []byte) (int, error) {
	if len(c.prefix) > 0 {
		n := copy(p, c.prefix)
		c.prefix = c.prefix[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// Write adds a reason to the answers Go's HTTP server writes itself, to a
// request it could not read (a head too large, a malformed request, an
// unsupported version or transfer coding), which no handler sees: every
// refusal names its reason in X-Tracker-Reason, these included.
func (c *Conn) Write(p []byte) (int, error) {
	if q, ok := withReason(p); ok {
		n, err := c.Conn.Write(q)
		if n == len(q) {
			n = len(p)
		} else {
			n = min(n, len(p)-1)
		}
		return n, err
	}
	return c.Conn.Write(p)
}

// serverErrorHead ends the head of every answer Go's server writes itself
// (net/http's errorHeaders); the answers of handlers never carry it: they
// have a Date line, and their header lines are sorted.
const serverErrorHead = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// withReason is p with an X-Tracker-Reason line after its status line, when
// p is an answer of Go's server's own.
func withReason(p []byte) ([]byte, bool) {
	const proto = "HTTP/1.1 "
	if !bytes.HasPrefix(p, []byte(proto)) || len(p) < len(proto)+3 {
		return nil, false
	}
	i := bytes.Index(p, []byte(serverErrorHead))
	if i < 0 || bytes.Contains(p[:i], []byte("\r\n")) {
		return nil, false
	}
	code, err := strconv.Atoi(string(p[len(proto) : len(proto)+3]))
	if err != nil {
		return nil, false
	}
	q := make([]byte, 0, len(p)+64)
	q = append(q, p[:i]...)
	q = append(q, "\r\nX-Tracker-Reason: "...)
	q = append(q, ServerReason(code)...)
	return append(q, p[i:]...), true
}

// ServerReason is the reason given to an answer of Go's server's own.
func ServerReason(status int) string {
	switch status {
	case 431:
		return "headers-too-large"
	case 501:
		return "unsupported-transfer-encoding"
	case 505:
		return "unsupported-version"
	default:
		return "malformed-request"
	}
}

// Reserved says whether the connection was let in on the reserve and the
// server is still that full: it is to serve the warrior routes only.
func (c *Conn) Reserved() bool { return c.rec.reserve && c.rec.l.nearFull() }

// Readopt hands a connection a handler took over (http.Hijacker) back to
// its listener, whose server serves its next requests as a new
// connection's; buffered are the bytes the handler's reader holds past its
// request (a pipelined next request). It reports false when conn is no
// Listener's connection, or the listener is closed: conn is the caller's to
// close then.
func Readopt(conn net.Conn, buffered []byte) bool {
	c, ok := conn.(*Conn)
	if !ok {
		return false
	}
	next := &Conn{Conn: c.Conn, rec: c.rec, prefix: append(bytes.Clone(buffered), c.prefix...), tls: c.tls}
	select {
	case c.rec.l.adopted <- next:
		return true
	case <-c.rec.l.done:
		return false
	}
}

// Buffered are the bytes r holds unread.
func Buffered(r *bufio.Reader) []byte {
	b, _ := r.Peek(r.Buffered())
	return b
}

// refusal is the answer to a connection whose address holds its share.
const refusalBody = "this address holds as many connections as it may: reuse one, or close some\n"

var refusal = "HTTP/1.1 503 Service Unavailable\r\n" +
	"Content-Type: text/plain; charset=utf-8\r\n" +
	"Connection: close\r\n" +
	"Retry-After: 10\r\n" +
	"X-Tracker-Reason: too-many-connections\r\n" +
	"Content-Length: " + strconv.Itoa(len(refusalBody)) + "\r\n" +
	"\r\n" + refusalBody

// refuse answers c 503 too-many-connections and closes it, without reading
// its request: an HTTP client reads an answer that comes early.
func (l *Listener) refuse(c net.Conn) {
	l.refused.Add(1)
	select {
	case l.refusing <- struct{}{}:
	default:
		c.Close() // a flood: no answer
		return
	}
	go func() {
		defer func() { <-l.refusing }()
		if l.tls != nil {
			l.refuseTLS(c)
			return
		}
		_ = c.SetWriteDeadline(time.Now().Add(time.Second))
		if _, err := io.WriteString(c, refusal); err != nil {
			c.Close()
			return
		}
		CloseGently(c, c)
	}()
}

// CloseGently ends the sending side first and reads what the client still
// sends for a moment, as net/http does, so that closing a socket with
// unread bytes does not reset the connection before the client has read
// the answer. r reads c (through a buffer, it may be).
func CloseGently(c net.Conn, r io.Reader) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	} else if cc, ok := c.(*Conn); ok {
		if cw, ok := cc.Conn.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
	}
	_ = c.SetReadDeadline(time.Now().Add(time.Second))
	var discard [512]byte
	for {
		if _, err := r.Read(discard[:]); err != nil {
			break
		}
	}
	c.Close()
}
