package conns

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"
)

// server serves h through a Listener with limits on 127.0.0.1.
func server(t *testing.T, limits Limits, h http.Handler) (*Listener, string) {
	t.Helper()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := Listen(inner, limits)
	srv := &http.Server{Handler: h, ConnState: l.ConnState, ConnContext: l.ConnContext, MaxHeaderBytes: 4 << 10}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return l, inner.Addr().String()
}

// client is a connection from the loopback address from (127.0.0.0/8 is
// all loopback on Linux: each address is another client).
type client struct {
	net.Conn
	r *bufio.Reader
}

func dial(t *testing.T, from, to string) *client {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 10 * time.Second}
	c, err := d.Dial("tcp", to)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(30 * time.Second)) // a hang fails the test, never passes it
	return &client{c, bufio.NewReader(c)}
}

// get sends a request and reads its answer.
func (c *client) get(t *testing.T, path string) *http.Response {
	t.Helper()
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: tracker\r\n\r\n", path); err != nil {
		t.Fatal(err)
	}
	return c.read(t)
}

func (c *client) read(t *testing.T) *http.Response {
	t.Helper()
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(strings.NewReader(string(body)))
	return resp
}

// closed says whether the server closed c: a read ends.
func (c *client) closed() bool {
	_, err := c.r.ReadByte()
	return err != nil
}

func ok(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }

// waitIdle waits until the listener holds n idle connections: a
// connection goes idle after its answer is written, a moment after the
// client has read it.
func waitIdle(t *testing.T, l *Listener, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for l.Stats().Idle != n {
		if time.Now().After(deadline) {
			t.Fatalf("idle connections: %d, want %d", l.Stats().Idle, n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestAddressPastItsShareShedsItsIdleConnection(t *testing.T) {
	l, addr := server(t, Limits{Total: 100, PerAddress: 3}, http.HandlerFunc(ok))
	var held []*client
	for range 3 {
		c := dial(t, "127.0.0.2", addr)
		if resp := c.get(t, "/"); resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
		held = append(held, c)
	}
	waitIdle(t, l, 3)
	// A fourth connection of the address closes its oldest idle one.
	c := dial(t, "127.0.0.2", addr)
	if resp := c.get(t, "/"); resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if !held[0].closed() {
		t.Error("the oldest idle connection of the address stayed open")
	}
	if s := l.Stats(); s.Open != 3 || s.Shed != 1 {
		t.Errorf("stats %+v, want 3 open, 1 shed", s)
	}
}

func TestAddressPastItsShareRefused(t *testing.T) {
	release := make(chan struct{})
	var started sync.WaitGroup
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			started.Done()
			<-release
		}
		io.WriteString(w, "ok")
	})
	l, addr := server(t, Limits{Total: 100, PerAddress: 3}, h)
	defer close(release)
	// Three connections of one address, each busy: none to shed.
	started.Add(3)
	for range 3 {
		c := dial(t, "127.0.0.2", addr)
		fmt.Fprintf(c, "GET /hold HTTP/1.1\r\nHost: tracker\r\n\r\n")
	}
	started.Wait()
	c := dial(t, "127.0.0.2", addr)
	resp := c.get(t, "/")
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("X-Tracker-Reason") != "too-many-connections" || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("fourth connection: %d %q, want 503 too-many-connections with Retry-After", resp.StatusCode, resp.Header.Get("X-Tracker-Reason"))
	}
	// Another address is served all the same.
	if resp := dial(t, "127.0.0.3", addr).get(t, "/"); resp.StatusCode != 200 {
		t.Fatalf("another address: status %d", resp.StatusCode)
	}
	if s := l.Stats(); s.Refused != 1 {
		t.Errorf("refused %d, want 1", s.Refused)
	}
}

func TestNearTheTotalIdleConnectionsGoFirst(t *testing.T) {
	l, addr := server(t, Limits{Total: 6, PerAddress: 6, Reserve: 2}, http.HandlerFunc(ok))
	var held []*client
	for i := range 4 {
		c := dial(t, fmt.Sprintf("127.0.1.%d", i+1), addr)
		c.get(t, "/")
		held = append(held, c)
	}
	waitIdle(t, l, 4)
	// At Total-Reserve, each new connection closes the longest idle.
	for i := range 2 {
		c := dial(t, "127.0.2.1", addr)
		if resp := c.get(t, "/"); resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
		if !held[i].closed() {
			t.Fatalf("idle connection %d stayed open", i)
		}
	}
	if s := l.Stats(); s.Open != 4 || s.Shed != 2 {
		t.Errorf("stats %+v, want 4 open, 2 shed", s)
	}
}

func TestReserveWhenNothingIsIdle(t *testing.T) {
	release := make(chan struct{})
	var started sync.WaitGroup
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			started.Done()
			<-release
		}
		fmt.Fprint(w, Of(r.Context()).Reserved())
	})
	l, addr := server(t, Limits{Total: 4, PerAddress: 4, Reserve: 1}, h)
	started.Add(3)
	var busy []*client
	for i := range 3 {
		c := dial(t, fmt.Sprintf("127.0.1.%d", i+1), addr)
		fmt.Fprintf(c, "GET /hold HTTP/1.1\r\nHost: tracker\r\n\r\n")
		busy = append(busy, c)
	}
	started.Wait()
	c := dial(t, "127.0.2.1", addr)
	if body := readAll(t, c.get(t, "/")); body != "true" {
		t.Fatalf("a connection past Total-Reserve with nothing idle: Reserved() = %s, want true", body)
	}
	// Once the server is below Total-Reserve again, it serves all.
	close(release)
	for _, b := range busy {
		b.read(t)
		b.Close()
	}
	deadline := time.Now().Add(10 * time.Second)
	for l.Stats().Open > 1 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if body := readAll(t, c.get(t, "/")); body != "false" {
		t.Fatalf("the server below the reserve: Reserved() = %s, want false", body)
	}
}

func TestFullWaitsForRoom(t *testing.T) {
	release := make(chan struct{})
	var started sync.WaitGroup
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			started.Done()
			<-release
		}
		io.WriteString(w, "ok")
	})
	l, addr := server(t, Limits{Total: 2, PerAddress: 2}, h)
	started.Add(2)
	var busy []*client
	for i := range 2 {
		c := dial(t, fmt.Sprintf("127.0.1.%d", i+1), addr)
		fmt.Fprintf(c, "GET /hold HTTP/1.1\r\nHost: tracker\r\nConnection: close\r\n\r\n")
		busy = append(busy, c)
	}
	started.Wait()
	// A third waits, unserved, until one of the two closes.
	done := make(chan int)
	go func() {
		c := dial(t, "127.0.2.1", addr)
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: tracker\r\n\r\n")
		resp, err := http.ReadResponse(c.r, nil)
		if err != nil {
			done <- 0
			return
		}
		done <- resp.StatusCode
	}()
	if s := l.Stats(); s.Open != 2 {
		t.Fatalf("open %d past the total of 2", s.Open)
	}
	close(release)
	if code := <-done; code != 200 {
		t.Fatalf("the waiting connection: status %d", code)
	}
	for _, b := range busy {
		b.read(t)
	}
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The answers Go's server writes itself, to requests no handler sees,
// carry a reason as every other refusal does.
func TestServerOwnAnswersNameTheirReason(t *testing.T) {
	_, addr := server(t, Limits{Total: 100}, http.HandlerFunc(ok))
	for _, c := range []struct {
		name, request string
		status        int
		reason        string
	}{
		{"head too large", "GET / HTTP/1.1\r\nHost: t\r\nX-Big: " + strings.Repeat("a", 8<<10) + "\r\n\r\n", 431, "headers-too-large"},
		{"two lengths", "POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400, "malformed-request"},
		{"bad request line", "GET\r\n\r\n", 400, "malformed-request"},
		{"no host", "GET / HTTP/1.1\r\n\r\n", 400, "malformed-request"},
		{"version", "GET / HTTP/2.5\r\nHost: t\r\n\r\n", 505, "unsupported-version"},
		{"transfer coding", "POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "unsupported-transfer-encoding"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := dial(t, "127.0.0.1", addr)
			io.WriteString(cl, c.request)
			resp := cl.read(t)
			if resp.StatusCode != c.status || resp.Header.Get("X-Tracker-Reason") != c.reason {
				t.Fatalf("%d %q, want %d %q", resp.StatusCode, resp.Header.Get("X-Tracker-Reason"), c.status, c.reason)
			}
		})
	}
	// A handler's answer is left as it is.
	resp := dial(t, "127.0.0.1", addr).get(t, "/")
	if resp.StatusCode != 200 || resp.Header.Get("X-Tracker-Reason") != "" {
		t.Fatalf("a handler's answer: %d %q", resp.StatusCode, resp.Header.Get("X-Tracker-Reason"))
	}
}

// A handler that takes a connection over and writes its answer by hand
// hands it back: the client's next request, pipelined or not, is served.
func TestReadoptedConnectionServesTheNextRequest(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/by-hand" {
			io.WriteString(w, "ok")
			return
		}
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		io.WriteString(buf, "HTTP/1.1 200 OK\r\nContent-Length: 7\r\nConnection: keep-alive\r\n\r\nby hand")
		buf.Flush()
		if !Readopt(conn, Buffered(buf.Reader)) {
			t.Error("not readopted")
			conn.Close()
		}
	})
	l, addr := server(t, Limits{Total: 100, PerAddress: 2}, h)
	c := dial(t, "127.0.0.2", addr)
	// Two by hand and one served by the server, the last two pipelined.
	if body := readAll(t, c.get(t, "/by-hand")); body != "by hand" {
		t.Fatalf("body %q", body)
	}
	fmt.Fprintf(c, "GET /by-hand HTTP/1.1\r\nHost: t\r\n\r\nGET /x HTTP/1.1\r\nHost: t\r\n\r\n")
	if body := readAll(t, c.read(t)); body != "by hand" {
		t.Fatalf("second answer %q", body)
	}
	if body := readAll(t, c.read(t)); body != "ok" {
		t.Fatalf("third answer %q", body)
	}
	if s := l.Stats(); s.Open != 1 {
		t.Errorf("open %d: a readopted connection counted twice", s.Open)
	}
	c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for l.Stats().Open != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if s := l.Stats(); s.Open != 0 {
		t.Errorf("open %d after the client left", s.Open)
	}
}

func TestInFlightPerAddress(t *testing.T) {
	f := NewInFlight(2)
	a := mustAddr("2001:db8:1:2::1")
	b := mustAddr("2001:db8:1:2::99") // the same /64
	leave1, ok1 := f.Enter(a)
	_, ok2 := f.Enter(b)
	if _, ok3 := f.Enter(a); !ok1 || !ok2 || ok3 {
		t.Fatalf("enter: %v %v %v, want the third of one /64 refused", ok1, ok2, ok3)
	}
	if _, ok := f.Enter(mustAddr("192.0.2.1")); !ok {
		t.Fatal("another address refused")
	}
	leave1()
	if _, ok := f.Enter(a); !ok {
		t.Fatal("refused after one left")
	}
}

func mustAddr(s string) netip.Addr { return netip.MustParseAddr(s) }
