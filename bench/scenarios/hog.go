package scenarios

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
	"tracker/bench/load"
)

// The connection hog: one client address holding as many idle keep-alives
// as the tracker takes in all (one GET /healthz each, then silence), and
// opening more than its share all along: what once kept every warrior
// out.

// hogAddress is the one client address the hog comes from: 127.0.0.0/8 is
// all loopback, so it is another client than the warriors' 127.0.0.1.
var hogAddress = net.IPv4(127, 0, 0, 2)

const (
	// hogConns is how many connections the hog opens ahead of each run:
	// as many as the tracker takes in all by default.
	hogConns = 10_000
	// hogRate is how many more it opens a second during the run.
	hogRate = 100
)

// hog is the hog's connections and what it met.
type hog struct {
	dialer                   net.Dialer
	host                     string
	mu                       sync.Mutex
	held                     []net.Conn
	opened, refused, dropped atomic.Int64
}

func newHog(base string) (*hog, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	return &hog{dialer: net.Dialer{LocalAddr: &net.TCPAddr{IP: hogAddress}, Timeout: 10 * time.Second}, host: u.Host}, nil
}

// open opens one connection, asks GET /healthz on it and keeps it.
func (h *hog) open(ctx context.Context) {
	c, err := h.dialer.DialContext(ctx, "tcp", h.host)
	if err != nil {
		return
	}
	h.opened.Add(1)
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: tracker\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		h.dropped.Add(1)
		c.Close()
		return
	}
	if resp.StatusCode == http.StatusServiceUnavailable {
		h.refused.Add(1)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	h.mu.Lock()
	h.held = append(h.held, c)
	h.mu.Unlock()
}

// fill opens n connections from 8 goroutines.
func (h *hog) fill(ctx context.Context, n int) {
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range (w+1)*n/8 - w*n/8 {
				h.open(ctx)
			}
		}()
	}
	wg.Wait()
}

// trickle opens hogRate connections a second until ctx ends.
func (h *hog) trickle(ctx context.Context) {
	tick := time.NewTicker(time.Second / hogRate)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			h.open(ctx)
		}
	}
}

func (h *hog) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range h.held {
		c.Close()
	}
	h.held = nil
}

// connectionHog runs warriors alone and beside the hog in turn (beside):
// the hog opens its connections ahead of each run beside it, and more all
// through it.
func (b *bench) connectionHog(ctx context.Context, name string, warriors int) error {
	if err := raiseOpenFiles(hogConns + 2000); err != nil {
		return err
	}
	var h *hog
	return b.beside(ctx, name, warriors, others{
		count: 1,
		before: func(ctx context.Context) error {
			var err error
			if h, err = newHog(b.url); err != nil {
				return err
			}
			h.fill(ctx, hogConns)
			return nil
		},
		start: func(ctx context.Context, l *load.Load) []func() {
			return []func(){func() { h.trickle(ctx) }}
		},
		did: func(*load.Load) string {
			return fmt.Sprintf("one address that opened %d connections ahead of the run (one GET /healthz each, then silence) and %d a second through it: %d opened in all, %d answered 503 too-many-connections, %d closed unanswered",
				hogConns, hogRate, h.opened.Load(), h.refused.Load(), h.dropped.Load())
		},
		after: func() { h.close() },
	})
}
