package handlers_test

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// nowPattern is what urls-grab requires of wget's saved answer to /now
// (docs/PROTOCOL.md, "GET /now"): these lines in this order, nothing else,
// and a body without a newline.
var nowPattern = regexp.MustCompile(`^HTTP/1\.1 200 OK\r\n` +
	`Server: openresty\r\n` +
	`Date: [A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} 202[0-9] [0-9]{2}:[0-9]{2}:[0-9]{2} GMT\r\n` +
	`Content-Type: text/plain\r\n` +
	`Connection: keep-alive\r\n` +
	`Content-Length: (1[0-9])\r\n` +
	`Cache-Control: no-store\r\n` +
	`\r\n` +
	`([0-9]{10}\.[0-9]{1,3})$`)

// GET /now as wget sends it, on a raw socket: the answer matches the
// scripts' pattern byte for byte and tells the time.
func TestNowRaw(t *testing.T) {
	t.Parallel()
	f := setup(t)
	u, err := url.Parse(f.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	before := time.Now()
	fmt.Fprintf(conn, "GET /now HTTP/1.1\r\nUser-Agent: Wget/1.21.4\r\nAccept: */*\r\nAccept-Encoding: identity\r\nHost: %s\r\nConnection: Keep-Alive\r\n\r\n", u.Host)
	// The answer ends when the server closes the connection.
	raw, err := io.ReadAll(bufio.NewReader(conn))
	after := time.Now()
	if err != nil {
		t.Fatalf("%v after %q", err, raw)
	}
	m := nowPattern.FindSubmatch(raw)
	if m == nil {
		t.Fatalf("answer does not match the scripts' pattern:\n%q", raw)
	}
	if n, err := strconv.Atoi(string(m[1])); err != nil || n != len(m[2]) {
		t.Errorf("Content-Length %s for a body of %d bytes", m[1], len(m[2]))
	}
	secs, err := strconv.ParseFloat(string(m[2]), 64)
	if err != nil {
		t.Fatal(err)
	}
	at := time.UnixMilli(int64(math.Round(secs * 1000)))
	if at.Before(before.Add(-time.Second)) || at.After(after.Add(time.Second)) {
		t.Errorf("/now says %v, the clock said %v to %v", at, before, after)
	}
}

// /now is never redirected and never a project's page.
func TestNowNotProject(t *testing.T) {
	t.Parallel()
	f := setup(t)
	if _, err := f.store.Create(t.Context(), "now", ""); err == nil {
		t.Error("a project took the slug now")
	}
	if _, err := f.store.Create(t.Context(), "dictionary", ""); err == nil {
		t.Error("a project took the slug dictionary")
	}
}
