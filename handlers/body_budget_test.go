package handlers_test

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tracker/db/dbtest"
	"tracker/handlers"
)

// gatedBody is a request body that gives all but its last byte as fast as
// it is read, then waits for gate to close: a body the server holds nearly
// whole while it cannot finish it. read counts the bytes the server read.
type gatedBody struct {
	data   []byte
	gate   <-chan struct{}
	read   atomic.Int64
	atGate atomic.Bool
}

func (b *gatedBody) Read(p []byte) (int, error) {
	off, end := int(b.read.Load()), len(b.data)-1
	if off >= end {
		b.atGate.Store(true)
		<-b.gate
		end = len(b.data)
	}
	if off == len(b.data) {
		return 0, io.EOF
	}
	n := copy(p, b.data[off:end])
	b.read.Add(int64(n))
	return n, nil
}

// bodyRoute is a route that reads a large body, with a body of it of
// exactly size bytes (i tells bodies apart) and what it answers to one.
type bodyRoute struct {
	name, path, contentType string
	body                    func(i, size int) []byte
	ok                      func(answer) bool
}

func bodyRoutes(f fixture) []bodyRoute {
	return []bodyRoute{
		{name: "backfeed", path: "/backfeed/legacy/test-" + f.project.Config.BackfeedKey, contentType: "application/x-www-form-urlencoded",
			// Entries of 4 KiB, each ended by the NUL delimiter.
			body: func(i, size int) []byte {
				var b bytes.Buffer
				for j := 0; b.Len() < size; j++ {
					name := fmt.Sprintf("bf:%d-%d-", i, j)
					b.WriteString(name + strings.Repeat("x", 4095-len(name)) + "\x00")
				}
				return b.Bytes()[:size]
			},
			ok: func(a answer) bool { return a.status == 200 && strings.Contains(a.body, `"new":`) }},
		{name: "done", path: "/test/done", contentType: "application/json",
			// A done padded by a field the tracker ignores.
			body: func(i, size int) []byte {
				head := fmt.Sprintf(`{"downloader":"alice","version":"1","item":"done:%d","bytes":{"data":1},"pad":"`, i)
				return []byte(head + strings.Repeat("x", size-len(head)-2) + `"}`)
			},
			ok: func(a answer) bool { return a.status == 200 && a.body == "OK" }},
	}
}

// serveInProcess answers req with routes on this goroutine: the body's
// reader then counts exactly what the handler read.
func serveInProcess(routes http.Handler, req *http.Request) answer {
	rec := httptest.NewRecorder()
	routes.ServeHTTP(rec, req)
	return answer{status: rec.Code, reason: rec.Header().Get("X-Tracker-Reason"), body: rec.Body.String(), header: rec.Header()}
}

func bodyRequest(route bodyRoute, body io.Reader, length int64) *http.Request {
	req := httptest.NewRequest("POST", route.path, body)
	req.Header.Set("Content-Type", route.contentType)
	req.ContentLength = length
	return req
}

// Many large bodies sent at once hold at most their budget: the posts past
// it wait for their share before reading a byte (before, each read its
// body whole, then waited its turn to write it), and are served once the
// others are done.
func TestLargeBodiesHoldAtMostTheirBudget(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, route := range bodyRoutes(f) {
		t.Run(route.name, func(t *testing.T) {
			const budget, size, posts = 1 << 20, 256 << 10, 8
			h := newHandler(slog.New(slog.NewTextHandler(io.Discard, nil)), f.pool)
			t.Cleanup(h.Close)
			h.LimitBodies(budget, time.Hour)
			routes := h.Routes()

			gate := make(chan struct{})
			bodies := make([]*gatedBody, posts)
			answers := make(chan answer, posts)
			for i := range bodies {
				bodies[i] = &gatedBody{data: route.body(i, size), gate: gate}
				req := bodyRequest(route, bodies[i], size)
				go func() { answers <- serveInProcess(routes, req) }()
			}
			atGate := func() (n int64) {
				for _, b := range bodies {
					if b.atGate.Load() {
						n++
					}
				}
				return n
			}
			dbtest.Eventually(t, func() bool { return atGate()+h.BodiesWaiting() == posts }, "every post read to its last byte or waiting")
			var held int64
			for _, b := range bodies {
				held += b.read.Load()
			}
			if held > budget {
				close(gate)
				t.Fatalf("%d posts in flight hold %d bytes of their bodies at once, over the budget of %d (%d read to their last byte)", posts, held, int64(budget), atGate())
			}
			close(gate)
			for range posts {
				if a := <-answers; !route.ok(a) {
					t.Fatalf("a post that waited its turn: %d %q %s", a.status, a.reason, a.body)
				}
			}
			if n := h.BodiesHeld(); n != 0 {
				t.Fatalf("%d bytes still reserved after every answer", n)
			}
		})
	}
}

// A body that cannot get its share of the budget within the wait is
// refused, 503 bodies-busy with Retry-After, without a byte of it read;
// the body holding the budget is answered as usual. A body without a
// length (chunked) takes the route's whole limit.
func TestBodyPastTheBudgetIsRefused(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, route := range bodyRoutes(f) {
		for _, chunked := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/chunked=%v", route.name, chunked), func(t *testing.T) {
				// The budget is the route's limit (4 MiB, a warrior
				// call's): one chunked body takes it whole, however
				// short.
				const budget = 4 << 20
				h := newHandler(slog.New(slog.NewTextHandler(io.Discard, nil)), f.pool)
				t.Cleanup(h.Close)
				h.LimitBodies(budget, time.Millisecond)
				routes := h.Routes()

				gate := make(chan struct{})
				first := &gatedBody{data: route.body(1, budget), gate: gate}
				length := int64(budget)
				if chunked {
					first.data, length = route.body(1, 64<<10), -1
				}
				answered := make(chan answer, 1)
				req := bodyRequest(route, first, length)
				go func() { answered <- serveInProcess(routes, req) }()
				dbtest.Eventually(t, first.atGate.Load, "the first body read to its last byte")

				// The second body is never held up: before, it was read
				// and answered.
				open := make(chan struct{})
				close(open)
				second := &gatedBody{data: route.body(2, 1<<10), gate: open}
				a := serveInProcess(routes, bodyRequest(route, second, 1<<10))
				close(gate)
				if a.status != http.StatusServiceUnavailable || a.reason != "bodies-busy" || a.header.Get("Retry-After") != "10" ||
					!strings.HasPrefix(a.header.Get("Content-Type"), "text/plain") {
					t.Fatalf("a body past the budget: %d %q, Retry-After %q, %s: %s", a.status, a.reason, a.header.Get("Retry-After"), a.header.Get("Content-Type"), a.body)
				}
				if n := second.read.Load(); n != 0 {
					t.Fatalf("the body refused was read: %d bytes", n)
				}
				if a := <-answered; !route.ok(a) {
					t.Fatalf("the body holding the budget: %d %q %s", a.status, a.reason, a.body)
				}
			})
		}
	}
}

// An items upload holds its share of the admin uploads' budget while it
// streams: another upload past the budget is refused, not read.
func TestAdminUploadsHoldTheirBudget(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.admin(t)
	var h *handlers.Handler
	s := f.serve(t, io.Discard, func(hh *handlers.Handler, _ *http.Server) {
		hh.LimitBodies(1<<20, time.Millisecond)
		h = hh
	})
	upload := func(body io.Reader, contentType string) *http.Request {
		req, _ := http.NewRequest("POST", s.srv.URL+"/admin/projects/test/items", body)
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		return req
	}

	// The first upload sends its parts only once the second is refused.
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	first := make(chan answer, 1)
	req := upload(pr, mw.FormDataContentType())
	go func() {
		resp, err := c.client.Do(req)
		if err != nil {
			first <- answer{status: -1, body: err.Error()}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		first <- answer{status: resp.StatusCode, reason: resp.Header.Get("X-Tracker-Reason"), body: string(b)}
	}()
	dbtest.Eventually(t, func() bool { return h.BodiesHeld() == 1<<20 }, "the first upload holding the budget")

	var form bytes.Buffer
	mw2 := multipart.NewWriter(&form)
	mw2.WriteField("names", "second:1")
	mw2.Close()
	a := c.send(t, upload(&form, mw2.FormDataContentType()))
	if a.status != http.StatusServiceUnavailable || a.reason != "bodies-busy" || a.header.Get("Retry-After") == "" {
		t.Fatalf("an upload past the budget: %d %q, Retry-After %q", a.status, a.reason, a.header.Get("Retry-After"))
	}

	mw.WriteField("names", "first:1\nfirst:2")
	mw.Close()
	pw.Close()
	if a := <-first; a.status != http.StatusSeeOther {
		t.Fatalf("the upload holding the budget: %d %q %s", a.status, a.reason, a.body)
	}
	if s := f.summary(t); s.Queues["todo"] != 2 {
		t.Fatalf("%d queued, want the first upload's 2", s.Queues["todo"])
	}
}
