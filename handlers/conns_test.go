package handlers_test

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"tracker/conns"
	"tracker/handlers"
)

// listen starts another tracker server on f's database as serve runs it:
// through handlers.Listen with limits and handlers.Server, after configure
// (when not nil) has set up the handlers; a timeout, when not 0, is the
// server's read and write timeout.
func (f fixture) listen(t *testing.T, limits conns.Limits, configure func(*handlers.Config), timeout time.Duration) fixture {
	t.Helper()
	var config []func(*handlers.Config)
	if configure != nil {
		config = append(config, configure)
	}
	h := newHandler(slog.New(slog.NewTextHandler(io.Discard, nil)), f.pool, config...)
	srv := httptest.NewUnstartedServer(nil)
	ln := h.Listen(srv.Listener, limits)
	cfg := h.Server(ln)
	if timeout != 0 {
		cfg.ReadTimeout, cfg.WriteTimeout = timeout, timeout
	}
	srv.Listener, srv.Config = ln, cfg
	srv.Start()
	t.Cleanup(h.Close)
	t.Cleanup(srv.Close)
	f.srv = srv
	return f
}

// rawConn is a client connection from a loopback address of its own
// (127.0.0.0/8 is all loopback: each address is another client).
type rawConn struct {
	net.Conn
	r *bufio.Reader
}

func (f fixture) dial(t *testing.T, from string) *rawConn {
	t.Helper()
	u, err := url.Parse(f.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 10 * time.Second}
	c, err := d.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(30 * time.Second)) // a hang fails the test
	return &rawConn{c, bufio.NewReader(c)}
}

// answer reads one answer off c.
func (c *rawConn) answer(t *testing.T) answer {
	t.Helper()
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, reason: resp.Header.Get("X-Tracker-Reason"), body: string(b), header: resp.Header}
}

// stall sends the head of a POST whose body never comes: its handler
// waits on the body, and the connection stays busy.
func (c *rawConn) stall(t *testing.T, path string, header ...string) {
	t.Helper()
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: tracker\r\nContent-Type: application/json\r\nContent-Length: 100\r\n%s\r\n{", path, strings.Join(header, ""))
}

// A body that stops coming is answered 400 incomplete-body when the read
// timeout passes, not dropped with the connection.
func TestStalledBodyAnswered(t *testing.T) {
	t.Parallel()
	f := setup(t, "item:1").listen(t, handlers.DefaultConnLimits, nil, 300*time.Millisecond)
	c := f.dial(t, "127.0.0.1")
	c.stall(t, "/test/done")
	if a := c.answer(t); a.status != 400 || a.reason != "incomplete-body" {
		t.Fatalf("a stalled body: %d %q, want 400 incomplete-body", a.status, a.reason)
	}
}

// GET /now says keep-alive, and keeps the connection: the client's next
// requests on it, one after the other or pipelined, are served.
func TestNowKeepsTheConnection(t *testing.T) {
	t.Parallel()
	f := setup(t).listen(t, handlers.DefaultConnLimits, nil, 0)
	c := f.dial(t, "127.0.0.1")
	const wget = "GET /now HTTP/1.1\r\nUser-Agent: Wget/1.21.4\r\nAccept: */*\r\nAccept-Encoding: identity\r\nHost: tracker\r\nConnection: Keep-Alive\r\n\r\n"
	io.WriteString(c, wget)
	if raw := readNow(t, c.r); !nowPattern.Match(raw) {
		t.Fatalf("answer does not match the scripts' pattern:\n%q", raw)
	}
	io.WriteString(c, wget+wget+"GET /healthz HTTP/1.1\r\nHost: tracker\r\n\r\n")
	for i := range 2 {
		if raw := readNow(t, c.r); !nowPattern.Match(raw) {
			t.Fatalf("answer %d on the kept connection does not match:\n%q", i+2, raw)
		}
	}
	if a := c.answer(t); a.status != 200 {
		t.Fatalf("/healthz after /now on one connection: %d %q", a.status, a.body)
	}
	// A client's own HTTP library reuses the connection too.
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}
	for range 3 {
		resp, err := client.Get(f.srv.URL + "/now")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// readNow reads one answer of /now as it came: its head and the bytes its
// Content-Length names.
func readNow(t *testing.T, r *bufio.Reader) []byte {
	t.Helper()
	var raw []byte
	length := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("%v after %q", err, raw)
		}
		raw = append(raw, line...)
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			length, _ = strconv.Atoi(strings.TrimSpace(v))
		}
		if line == "\r\n" {
			break
		}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		t.Fatal(err)
	}
	return append(raw, body...)
}

// A connection let in on the reserve, while the server is that full,
// serves the warrior routes only: a page is refused 503 server-full.
func TestReserveServesWarriorsOnly(t *testing.T) {
	t.Parallel()
	f := setup(t, "item:1").listen(t, conns.Limits{Total: 3, PerAddress: 3, Reserve: 1}, nil, 0)
	for range 2 {
		f.dial(t, "127.0.0.2").stall(t, "/test/done")
	}
	// The stalled posts are read in their handlers, so busy: a page on
	// the third connection is refused once both are (a stalled post's
	// connection may still be new when the third comes; the page is
	// asked until both are busy).
	deadline := time.Now().Add(10 * time.Second)
	for {
		c := f.dial(t, "127.0.0.3")
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: tracker\r\n\r\n")
		a := c.answer(t)
		if a.status == 503 {
			if a.reason != "server-full" {
				t.Fatalf("a page on the reserve: %d %q, want 503 server-full", a.status, a.reason)
			}
			if _, err := c.r.ReadByte(); err != io.EOF {
				t.Fatalf("the connection of a refused page stayed open: %v", err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a page on the reserve: %d, never refused", a.status)
		}
		c.Close()
	}
	c := f.dial(t, "127.0.0.3")
	const body = `{"downloader":"bob","api_version":"2"}`
	fmt.Fprintf(c, "POST /test/request HTTP/1.1\r\nHost: tracker\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	if a := c.answer(t); a.status != 200 || !strings.Contains(a.body, "item:1") {
		t.Fatalf("a warrior on the reserve: %d %q %q, want the item", a.status, a.reason, a.body)
	}
}

// Behind a trusted proxy, a client is held to its share by the requests
// it has in flight: the proxy's connections carry everyone's.
func TestProxiedClientHeldToItsShare(t *testing.T) {
	t.Parallel()
	f := setup(t, "item:1").listen(t, conns.Limits{Total: 100, PerAddress: 2}, func(c *handlers.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	}, 0)
	for range 2 {
		f.dial(t, "127.0.0.1").stall(t, "/test/done", "X-Forwarded-For: 198.51.100.7\r\n")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		a := f.as("198.51.100.7").do(t, "GET", "/healthz", "")
		if a.status == 503 {
			if a.reason != "too-many-connections" {
				t.Fatalf("a third request in flight: %d %q, want 503 too-many-connections", a.status, a.reason)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a third request in flight: %d, never refused", a.status)
		}
	}
	if a := f.as("198.51.100.8").do(t, "POST", "/test/request", `{"downloader":"bob","api_version":"2"}`); a.status != 200 {
		t.Fatalf("another client: %d %q", a.status, a.reason)
	}
}

// A client address past its share of connections, none of them idle, is
// answered 503 too-many-connections, which the metrics count; another
// address is served.
func TestAddressPastItsShareRefused(t *testing.T) {
	t.Parallel()
	f := setup(t, "item:1").listen(t, conns.Limits{Total: 100, PerAddress: 2}, nil, 0)
	for range 2 {
		f.dial(t, "127.0.0.2").stall(t, "/test/done")
	}
	c := f.dial(t, "127.0.0.2")
	io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: tracker\r\n\r\n")
	if a := c.answer(t); a.status != 503 || a.reason != "too-many-connections" || a.header.Get("Retry-After") == "" {
		t.Fatalf("a third connection of the address: %d %q, want 503 too-many-connections with Retry-After", a.status, a.reason)
	}
	m := f.dial(t, "127.0.0.3")
	io.WriteString(m, "GET /metrics HTTP/1.1\r\nHost: tracker\r\n\r\n")
	if a := m.answer(t); !strings.Contains(a.body, "tracker_connections_refused_total 1\n") {
		t.Fatalf("the metrics do not count the refusal:\n%s", a.body)
	}
}

// Beside TLS, the plain listener answers warriors and scripts where they
// call, refuses the admin API (its token must not cross in the clear) and
// sends everything else to HTTPS with 308.
func TestBesideTLS(t *testing.T) {
	t.Parallel()
	h := newHandler(slog.New(slog.NewTextHandler(io.Discard, nil)), setup(t).pool)
	served := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(299) })
	for _, c := range []struct {
		method, target, host, port string
		status                     int
		location                   string
	}{
		{"POST", "/demo/request", "t.example", "443", 299, ""},
		{"POST", "/demo/multi=5//done", "t.example", "443", 299, ""},
		{"GET", "/now", "t.example:80", "443", 299, ""},
		{"POST", "/backfeed/legacy/demo-k", "t.example", "443", 299, ""},
		{"GET", "/projects.json", "t.example", "443", 299, ""},
		{"POST", "/api/update.json", "t.example", "443", 299, ""},
		{"GET", "/api/v1/projects/demo", "t.example", "443", 403, ""},
		{"POST", "/api/v1/projects/demo/items", "t.example", "443", 403, ""},
		{"GET", "/demo/?page=2", "t.example:80", "443", 308, "https://t.example/demo/?page=2"},
		{"POST", "/admin/login", "t.example", "8443", 308, "https://t.example:8443/admin/login"},
		{"GET", "/", "[2001:db8::1]:80", "443", 308, "https://[2001:db8::1]/"},
		{"GET", "/", "[2001:db8::1]", "8443", 308, "https://[2001:db8::1]:8443/"},
	} {
		req := httptest.NewRequest(c.method, c.target, nil)
		req.Host = c.host
		rec := httptest.NewRecorder()
		h.BesideTLS(served, c.port).ServeHTTP(rec, req)
		if rec.Code != c.status || rec.Header().Get("Location") != c.location {
			t.Errorf("%s %s (Host %s): %d to %q, want %d to %q", c.method, c.target, c.host, rec.Code, rec.Header().Get("Location"), c.status, c.location)
		}
	}
}
