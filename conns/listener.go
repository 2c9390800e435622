// Package conns keeps the server's connections to account: how many are
// open, how many each client address holds, which sit idle between
// requests. One client must not hold the connections every other client
// needs: an address past its share is turned away, idle keep-alives are
// closed first when the server nears its total, and the last connections
// before the total serve the warrior routes only.
package conns

import (
	"container/list"
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"tracker/addrkey"
)

// Limits bound the connections a server holds.
type Limits struct {
	// Total is how many connections are open at once. Past it a new
	// connection waits, accepted but unread, until one closes: a flood
	// slows down instead of exhausting the process.
	Total int
	// PerAddress is how many connections one client address holds
	// (addrkey.Of: an IPv6 client by its /64). Past it the oldest idle
	// one of that address is closed to make room, or, when none is idle,
	// the new connection is answered 503 too-many-connections.
	PerAddress int
	// Reserve is the part of Total kept for the warrior routes. From
	// Total-Reserve connections on, each new one first closes the oldest
	// idle connection of the server; when none is idle it is accepted as a
	// reserve connection, which serves the warrior routes only while the
	// server stays that full (Reserved).
	Reserve int
	// Exempt are peers counted in Total only: trusted reverse proxies,
	// each of whose connections carries many clients' requests (their
	// clients are counted by request: InFlight).
	Exempt []netip.Prefix
}

// Stats are a listener's counts since it began, for the metrics.
type Stats struct {
	// Open is how many connections are open now; Idle how many of them
	// wait between requests.
	Open, Idle int
	// Refused counts connections turned away because their address held
	// its share; Shed idle connections closed to make room.
	Refused, Shed uint64
}

// refusers bounds the goroutines that answer turned-away connections: a
// flood past it is closed without an answer.
const refusers = 64

// Listener is a net.Listener that keeps its connections to account. Give
// its ConnState and ConnContext to the http.Server that serves it.
type Listener struct {
	inner  net.Listener
	limits Limits

	mu     sync.Mutex
	room   *sync.Cond // signalled when a connection closes
	open   int
	byAddr map[netip.Prefix]*address
	idle   list.List // of *record, the longest idle first
	closed bool

	accepted chan accepted
	adopted  chan net.Conn
	done     chan struct{}
	stop     sync.Once

	refusing         chan struct{} // a slot per refusal being answered
	refused, shedded atomic.Uint64

	// tls, when not nil, is what the connections speak TLS with
	// (ListenTLS).
	tls *tls.Config
}

// address is what one client address holds.
type address struct {
	open int
	idle list.List // of *record, the longest idle first
}

type accepted struct {
	conn net.Conn
	err  error
}

// Listen wraps inner. limits.Total must be at least 1; PerAddress 0 means
// Total.
func Listen(inner net.Listener, limits Limits) *Listener { return listen(inner, limits, nil) }

func listen(inner net.Listener, limits Limits, cfg *tls.Config) *Listener {
	if limits.PerAddress <= 0 {
		limits.PerAddress = limits.Total
	}
	limits.Reserve = min(max(limits.Reserve, 0), limits.Total-1)
	l := &Listener{
		inner:    inner,
		limits:   limits,
		byAddr:   map[netip.Prefix]*address{},
		accepted: make(chan accepted),
		adopted:  make(chan net.Conn),
		done:     make(chan struct{}),
		refusing: make(chan struct{}, refusers),
		tls:      cfg,
	}
	l.room = sync.NewCond(&l.mu)
	go l.acceptLoop()
	return l
}

// Accept returns the next connection the limits let in, or one handed
// back by Readopt.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case a := <-l.accepted:
		return a.conn, a.err
	case c := <-l.adopted:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops accepting; open connections stay until the server closes
// them.
func (l *Listener) Close() error {
	var err error
	l.stop.Do(func() {
		close(l.done)
		err = l.inner.Close()
		l.mu.Lock()
		l.closed = true
		l.room.Broadcast()
		l.mu.Unlock()
	})
	return err
}

// Addr is the inner listener's.
func (l *Listener) Addr() net.Addr { return l.inner.Addr() }

// Stats are the listener's counts now.
func (l *Listener) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return Stats{Open: l.open, Idle: l.idle.Len(), Refused: l.refused.Load(), Shed: l.shedded.Load()}
}

func (l *Listener) acceptLoop() {
	var delay time.Duration
	for {
		c, err := l.inner.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
				// Out of file descriptors, say: wait a little, as
				// http.Server does, rather than spin.
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				select {
				case <-time.After(delay):
					continue
				case <-l.done:
					return
				}
			}
			select {
			case l.accepted <- accepted{err: err}:
			case <-l.done:
			}
			return
		}
		delay = 0
		conn := l.admit(c)
		switch {
		case conn == nil:
		case l.tls != nil:
			// A handshake takes round trips: it must not hold up the
			// connections behind it.
			go l.handshake(conn)
		default:
			l.hand(conn)
		}
	}
}

// hand gives c to Accept, or closes it when the listener closes first.
func (l *Listener) hand(c net.Conn) {
	select {
	case l.accepted <- accepted{conn: c}:
	case <-l.done:
		c.Close()
	}
}

// admit counts c in, making room for it, or turns it away (nil).
func (l *Listener) admit(c net.Conn) *Conn {
	peer := peerAddr(c)
	key := addrkey.Of(peer)
	exempt := l.exempt(peer)

	l.mu.Lock()
	var shed []*record
	a := l.byAddr[key]
	if !exempt && a != nil && a.open >= l.limits.PerAddress {
		r := a.oldestIdle()
		if r == nil {
			l.mu.Unlock()
			l.refuse(c)
			return nil
		}
		shed = append(shed, l.unidle(r))
	}
	reserve := false
	for l.open-len(shed) >= l.limits.Total-l.limits.Reserve && !l.closed {
		if r := l.oldestIdle(); r != nil {
			shed = append(shed, l.unidle(r))
			continue
		}
		if l.open-len(shed) < l.limits.Total {
			reserve = true
			break
		}
		// Full, and nothing idle: wait for a connection to close. The
		// ones chosen to shed must close first, or they would be waited
		// for while still counted.
		if len(shed) > 0 {
			l.mu.Unlock()
			closeAll(shed)
			shed = nil
			l.mu.Lock()
			continue
		}
		l.room.Wait()
	}
	if l.closed {
		l.mu.Unlock()
		closeAll(shed)
		c.Close()
		return nil
	}
	if a = l.byAddr[key]; a == nil {
		a = &address{}
		l.byAddr[key] = a
	}
	r := &record{l: l, conn: c, key: key, addr: a, reserve: reserve}
	l.open++
	a.open++
	l.mu.Unlock()
	closeAll(shed) // each decrements the counts as it closes
	return &Conn{Conn: c, rec: r}
}

func closeAll(rs []*record) {
	for _, r := range rs {
		r.l.shedded.Add(1)
		r.closeConn()
	}
}

func (l *Listener) exempt(a netip.Addr) bool {
	for _, p := range l.limits.Exempt {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// nearFull says whether the server holds Total-Reserve connections or
// more: the reserve is in use.
func (l *Listener) nearFull() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open > l.limits.Total-l.limits.Reserve
}

func (l *Listener) oldestIdle() *record {
	if e := l.idle.Front(); e != nil {
		return e.Value.(*record)
	}
	return nil
}

func (a *address) oldestIdle() *record {
	if e := a.idle.Front(); e != nil {
		return e.Value.(*record)
	}
	return nil
}

// unidle takes r off the idle lists (l.mu held), so it is chosen once.
func (l *Listener) unidle(r *record) *record {
	if r.idle != nil {
		l.idle.Remove(r.idle)
		r.addr.idle.Remove(r.addrIdle)
		r.idle, r.addrIdle = nil, nil
	}
	return r
}

// ConnState follows each connection's state: give it to http.Server.
func (l *Listener) ConnState(c net.Conn, s http.ConnState) {
	cc, ok := unwrap(c).(*Conn)
	if !ok {
		return
	}
	r := cc.rec
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case s == http.StateIdle && r.idle == nil && !r.gone:
		r.idle = l.idle.PushBack(r)
		r.addrIdle = r.addr.idle.PushBack(r)
		l.room.Signal() // a connection waiting for room may shed it
	case s != http.StateIdle:
		l.unidle(r)
	}
}

// ConnContext puts the connection in its requests' context (Of): give it
// to http.Server.
func (l *Listener) ConnContext(ctx context.Context, c net.Conn) context.Context {
	if cc, ok := unwrap(c).(*Conn); ok {
		return context.WithValue(ctx, connKey{}, cc)
	}
	return ctx
}

// unwrap is the connection under c when c is an HTTP/2 connection's TLS
// (see handshake), else c.
func unwrap(c net.Conn) net.Conn {
	if tc, ok := c.(*tls.Conn); ok {
		return tc.NetConn()
	}
	return c
}

type connKey struct{}

// Of is the connection a request came on, nil when it came through no
// Listener.
func Of(ctx context.Context) *Conn {
	c, _ := ctx.Value(connKey{}).(*Conn)
	return c
}

func peerAddr(c net.Conn) netip.Addr {
	if ap, err := netip.ParseAddrPort(c.RemoteAddr().String()); err == nil {
		return ap.Addr().Unmap()
	}
	return netip.Addr{}
}
