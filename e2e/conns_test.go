package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"tracker/db"
	"tracker/db/dbtest"
	"tracker/handlers"
)

// One client address that opens more connections than the server takes in
// all (one GET /healthz each, then silence, as idle keep-alives) does not
// keep a warrior from another address out: with the server's own limits,
// the hog's connections past its share close its own idle ones.
func TestConnectionHogLeavesRoomForWarriors(t *testing.T) {
	hog := handlers.DefaultConnLimits.Total + 100
	// The test holds the hog's connections, the tracker their other ends.
	raiseFileLimit(t, uint64(hog)+2000)
	dsn := dbtest.NewDSN(t)
	pool, err := db.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	dbtest.Project(t, pool, "demo", "Demo")
	pool.Close()
	cliEnv(t, env("DATABASE_URL="+dsn), "item:1\nitem:2\n", "items", "add", "demo")
	s := serveCmd(t, exec.Command(binary, "serve", "--addr", "127.0.0.1:0"), env("DATABASE_URL="+dsn))
	u, _ := url.Parse(s.url)

	// The hog takes every connection the server holds, one request each,
	// then opens a hundred more without waiting for them.
	total := handlers.DefaultConnLimits.Total
	var opened, answered atomic.Int64
	var held sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		held.Lock()
		defer held.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	open := func(from, to int, wait bool) {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, Timeout: 10 * time.Second}
		for range to - from {
			c, err := d.Dial("tcp", u.Host)
			if err != nil {
				continue // the hog's own trouble
			}
			opened.Add(1)
			held.Lock()
			conns = append(conns, c)
			held.Unlock()
			_ = c.SetDeadline(time.Now().Add(time.Minute))
			fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: tracker\r\n\r\n")
			if !wait {
				continue
			}
			if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
				io.Copy(io.Discard, resp.Body)
				answered.Add(1)
			}
		}
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() { defer wg.Done(); open(w*total/8, (w+1)*total/8, true) }()
	}
	wg.Wait()
	go open(total, hog, false)
	t.Logf("the hog opened %d connections, %d answered", opened.Load(), answered.Load())

	// A warrior from another address is served at once.
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 3)}}
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DialContext: d.DialContext}}
	resp, err := client.Post(s.url+"/demo/request", "application/json", strings.NewReader(`{"downloader":"alice","api_version":"2"}`))
	if err != nil {
		t.Fatalf("a warrior beside the hog: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), "item:") {
		t.Fatalf("a warrior beside the hog: %d %q", resp.StatusCode, b)
	}
}

// raiseFileLimit raises the process's open-file limit (which the tracker
// it starts inherits) to at least n, or skips the test where the hard
// limit is lower.
func raiseFileLimit(t *testing.T, n uint64) {
	t.Helper()
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		t.Fatal(err)
	}
	if l.Max < n {
		t.Skipf("the open-file limit is %d, under the %d this test needs", l.Max, n)
	}
	if l.Cur < n {
		old := l
		l.Cur = l.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old) })
	}
}
