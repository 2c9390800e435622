package handlers_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"tracker/db/dbtest"
	"tracker/handlers"
	"tracker/items"
)

// Live streams are bounded per address and in total: past the bound a
// client gets 503 at once with a reason, warriors are still served, a
// stream that ends gives its slot back, and a stream ends by itself after
// its lifetime.
func TestStreamLimits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	p := dbtest.Project(t, pool, "test", "")
	log := slog.New(slog.DiscardHandler)
	if _, err := items.NewEngine(pool, log).Add(ctx, p, "todo", strings.NewReader("a:1\na:2\na:3")); err != nil {
		t.Fatal(err)
	}
	h := newHandler(log, pool, func(c *handlers.Config) {
		c.Streams = handlers.StreamLimits{Total: 2, PerAddress: 2, Lifetime: time.Hour}
	})
	srv := httptest.NewServer(h.Routes())
	t.Cleanup(srv.Close)
	t.Cleanup(h.Close)

	open := func() (*http.Response, context.CancelFunc) {
		t.Helper()
		ctx, cancel := context.WithCancel(ctx)
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/test/events", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp, cancel
	}
	var cancels []context.CancelFunc
	for range 2 {
		resp, cancel := open()
		if resp.StatusCode != 200 {
			t.Fatalf("a stream within the limits: %d", resp.StatusCode)
		}
		defer resp.Body.Close()
		cancels = append(cancels, cancel)
	}
	resp, cancel := open()
	body, _ := io.ReadAll(resp.Body)
	cancel()
	if resp.StatusCode != 503 || resp.Header.Get("X-Tracker-Reason") != "too-many-streams" || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a stream past the limits: %d %s %s", resp.StatusCode, resp.Header.Get("X-Tracker-Reason"), body)
	}
	// Warriors are served beside the streams.
	req, _ := http.NewRequest("POST", srv.URL+"/test/request", strings.NewReader(`{"downloader":"alice"}`))
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("a warrior beside the streams: %v %v", resp, err)
	}
	// A stream that ends gives its slot back (once the server sees it end).
	cancels[0]()
	dbtest.Eventually(t, func() bool {
		resp, cancel := open()
		cancels = append(cancels, cancel)
		resp.Body.Close()
		return resp.StatusCode == 200
	}, "the slot of a closed stream back")
	for _, c := range cancels {
		c()
	}

	// A stream ends by itself after its lifetime; the browser reconnects.
	short := newHandler(log, pool, func(c *handlers.Config) {
		c.Streams = handlers.StreamLimits{Total: 2, PerAddress: 2, Lifetime: time.Millisecond}
	})
	srv2 := httptest.NewServer(short.Routes())
	t.Cleanup(srv2.Close)
	t.Cleanup(short.Close)
	ctx2, cancel2 := context.WithTimeout(ctx, 30*time.Second)
	defer cancel2()
	req, _ = http.NewRequestWithContext(ctx2, "GET", srv2.URL+"/test/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("stream: %v %v", resp, err)
	}
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Fatalf("the stream did not end by itself: %v", err)
	}
	resp.Body.Close()
}
