package handlers_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
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
	"tracker/stats"
)

// sseEvent is one event of a stream: its id, name and data.
type sseEvent struct{ id, name, data string }

// readEvent reads the next event (or the retry line) from a stream.
func readEvent(r *bufio.Reader) (sseEvent, error) {
	var e sseEvent
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return e, err
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if e.name != "" {
				return e, nil
			}
		case strings.HasPrefix(line, "id: "):
			e.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			e.name = line[7:]
		case strings.HasPrefix(line, "data: "):
			e.data = line[6:]
		}
	}
}

// The live stream sends the whole board, then patches that lead from it
// to each next board, in gzip to a client that takes it: one gzip stream,
// its checksum and length right when the server ends it, a new completion
// reaching the client through patches alone. A client that takes no gzip
// gets the same events as they are.
func TestBoardEventsPatchedInGzip(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool := dbtest.New(t)
	p := dbtest.Project(t, pool, "test", "")
	log := slog.New(slog.DiscardHandler)
	if _, err := items.NewEngine(pool, log).Add(ctx, p, "todo", strings.NewReader("a:1\na:2\na:3")); err != nil {
		t.Fatal(err)
	}
	h := newHandler(log, pool, func(c *handlers.Config) {
		c.Streams = handlers.StreamLimits{Total: 10, PerAddress: 10, Lifetime: time.Hour}
	})
	srv := httptest.NewServer(h.Routes())
	t.Cleanup(srv.Close)
	t.Cleanup(h.Close)
	raw := &http.Client{Transport: &http.Transport{DisableCompression: true}}

	// A client that takes no gzip.
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/test/events", nil)
	resp, err := raw.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if ce := resp.Header.Get("Content-Encoding"); ce != "" {
		t.Fatalf("a stream in %s to a client that takes none", ce)
	}
	if e, err := readEvent(bufio.NewReader(resp.Body)); err != nil || e.name != "board" || e.id == "" {
		t.Fatalf("the plain stream's first event: %+v %v", e, err)
	}
	resp.Body.Close()

	req, _ = http.NewRequestWithContext(ctx, "GET", srv.URL+"/test/events", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err = raw.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(resp.Header.Get("Vary"), "Accept-Encoding") {
		t.Fatalf("stream: %d, %q, Vary %q", resp.StatusCode, resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"))
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatalf("the stream's gzip header: %v", err)
	}
	events := bufio.NewReader(zr)
	first, err := readEvent(events)
	if err != nil || first.name != "board" {
		t.Fatalf("first event: %+v %v", first, err)
	}
	board, id := []byte(first.data), first.id

	// A warrior completes an item: patches alone bring it.
	code, body := postJSON(t, srv.URL+"/test/request", `{"downloader":"alice"}`)
	if code != 200 {
		t.Fatalf("request: %d %s", code, body)
	}
	var claim struct {
		Item string `json:"item_name"`
	}
	if err := json.Unmarshal([]byte(body), &claim); err != nil {
		t.Fatal(err)
	}
	if code, body := postJSON(t, srv.URL+"/test/done", `{"downloader":"alice","item":"`+claim.Item+`","bytes":{"data":1000}}`); code != 200 {
		t.Fatalf("done: %d %s", code, body)
	}
	var got stats.Board
	patches := 0
	for got.Totals.Done != 1 {
		e, err := readEvent(events)
		if err != nil {
			t.Fatalf("after %d patches: %v", patches, err)
		}
		if e.name != "patch" {
			t.Fatalf("a %q event after the first board (a stream that misses no board sends patches)", e.name)
		}
		var p stats.Patch
		if err := json.Unmarshal([]byte(e.data), &p); err != nil {
			t.Fatal(err)
		}
		if p.From != id || p.To != e.id {
			t.Fatalf("a patch from %s to %s (event id %s) after board %s", p.From, p.To, e.id, id)
		}
		if board, err = stats.Apply(board, []byte(e.data)); err != nil {
			t.Fatal(err)
		}
		id = e.id
		patches++
		got = stats.Board{}
		if err := json.Unmarshal(board, &got); err != nil {
			t.Fatal(err)
		}
	}
	if len(got.Leaders) != 1 || got.Leaders[0].Nick != "alice" || got.Leaders[0].Share != 1 || len(got.Feed) != 1 || got.Feed[0].Item != claim.Item {
		t.Fatalf("the board the patches lead to: %s", board)
	}

	// The server ends the stream: the gzip's end checks out.
	h.EndStreams()
	if _, err := io.Copy(io.Discard, zr); err != nil {
		t.Fatalf("the stream's gzip after it ended: %v", err)
	}
}

func postJSON(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
