package handlers_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"tracker/db/dbtest"
	"tracker/stats"
)

func getJSON(t *testing.T, url string, header map[string]string, v any) *http.Response {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, val := range header {
		req.Header.Set(k, val)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if v != nil && resp.StatusCode == 200 {
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("GET %s: %v in %q", url, err, body)
		}
	}
	return resp
}

func TestStatsJSON(t *testing.T) {
	t.Parallel()
	f := setup(t, "item:1", "item:2", "item:3")
	f.do(t, "POST", "/test/multi=2//request", `{"downloader":"alice","version":"1"}`)
	f.do(t, "POST", "/test/done", `{"downloader":"alice","version":"1","item":"item:1\u0000item:2","bytes":{"data":2048}}`)

	var b stats.Board
	resp := getJSON(t, f.srv.URL+"/test/stats.json", nil, &b)
	if resp.StatusCode != 200 || b.Project != "test" || b.Totals.Done != 2 || b.Totals.Bytes != 2048 || b.Totals.Todo != 1 ||
		len(b.Leaders) != 1 || b.Leaders[0].Nick != "alice" || len(b.Feed) != 1 {
		t.Fatalf("stats.json: %d %+v", resp.StatusCode, b)
	}
	etag := resp.Header.Get("ETag")
	if etag == "" || resp.Header.Get("Cache-Control") == "" {
		t.Fatalf("stats.json headers %v", resp.Header)
	}
	// Unchanged within the second: 304.
	if resp := getJSON(t, f.srv.URL+"/test/stats.json", map[string]string{"If-None-Match": etag}, nil); resp.StatusCode != 304 {
		// A new board may have been read meanwhile; it must then differ.
		if resp.Header.Get("ETag") == etag {
			t.Fatalf("If-None-Match with the current ETag: %d", resp.StatusCode)
		}
	}
	if resp := getJSON(t, f.srv.URL+"/nope/stats.json", nil, nil); resp.StatusCode != 404 {
		t.Fatalf("unknown project: %d", resp.StatusCode)
	}
}

func TestChartsJSON(t *testing.T) {
	t.Parallel()
	f := setup(t)
	var c stats.Chart
	if resp := getJSON(t, f.srv.URL+"/test/charts.json?span=week", nil, &c); resp.StatusCode != 200 || c.Span != stats.SpanWeek || c.Bucket != 3600 || len(c.Points) < 168 {
		t.Fatalf("charts.json: %d %+v", resp.StatusCode, c)
	}
	if resp := getJSON(t, f.srv.URL+"/test/charts.json", nil, &c); resp.StatusCode != 200 || c.Span != stats.SpanDay {
		t.Fatalf("charts.json default span: %d %+v", resp.StatusCode, c.Span)
	}
	if a := f.do(t, "GET", "/test/charts.json?span=year", ""); a.status != 400 || a.reason != "invalid-span" {
		t.Fatalf("bad span: %d %s", a.status, a.reason)
	}
}

func TestProjectsJSON(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	if _, err := f.store.Set(ctx, f.project, []string{"deadline=2026-12-31T23:00:00+01:00", "lat_lng=51.5,-0.12",
		"description=Saving it", "logo=https://example.org/logo.png", "repository=https://github.com/x/test-grab.git"}); err != nil {
		t.Fatal(err)
	}
	dbtest.Project(t, f.pool, "secret", "", "hidden=true")
	// Before any setting: auto_project is null.
	var raw map[string]json.RawMessage
	getJSON(t, f.srv.URL+"/projects.json", nil, &raw)
	if string(raw["auto_project"]) != "null" {
		t.Fatalf("auto_project %s", raw["auto_project"])
	}
	if _, err := f.store.SetSettings(ctx, []string{"seesaw_version=0.8.5", "auto_project=test", "broadcast_message=<b>Hi</b>"}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Warrior struct {
			SeesawVersion string `json:"seesaw_version"`
		} `json:"warrior"`
		AutoProject      string `json:"auto_project"`
		BroadcastMessage string `json:"broadcast_message"`
		Projects         []map[string]any
	}
	getJSON(t, f.srv.URL+"/projects.json", nil, &doc)
	if doc.Warrior.SeesawVersion != "0.8.5" || doc.AutoProject != "test" || doc.BroadcastMessage != "<b>Hi</b>" || len(doc.Projects) != 1 {
		t.Fatalf("projects.json %+v", doc)
	}
	p := doc.Projects[0]
	for k, want := range map[string]any{
		"name": "test", "title": "Test project", "description": "Saving it", "deadline": "2026-12-31T22:00:00Z",
		"logo": "https://example.org/logo.png", "leaderboard": f.srv.URL + "/test/",
	} {
		if p[k] != want {
			t.Errorf("projects.json %s = %v, want %v", k, p[k], want)
		}
	}
	if ll, _ := p["lat_lng"].([]any); len(ll) != 2 || ll[0] != 51.5 {
		t.Errorf("lat_lng %v", p["lat_lng"])
	}
}

// The live stream sends the board at once, then again when it changes:
// a done shows within a few seconds.
func TestBoardEvents(t *testing.T) {
	t.Parallel()
	f := setup(t, "item:1", "item:2")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", f.srv.URL+"/test/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	// The reader ends when the stream does, and the test waits for it.
	events := make(chan stats.Board)
	ended := make(chan struct{})
	defer func() { cancel(); <-ended }()
	go func() {
		defer close(ended)
		defer close(events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var id, event string
		var last []byte // the board so far, as JSON
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "id: "):
				id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				// The whole board first, then patches to it.
				data := []byte(strings.TrimPrefix(line, "data: "))
				var js []byte
				if event == "board" && id != "" {
					js = data
				} else if event == "patch" && id != "" && last != nil {
					js, _ = stats.Apply(last, data)
				}
				var b stats.Board
				if js == nil || json.Unmarshal(js, &b) != nil {
					t.Errorf("bad event %q %q %q", id, event, line)
					return
				}
				last = js
				select {
				case events <- b:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	first, ok := <-events
	if !ok {
		t.Fatal("the stream ended before its first board")
	}
	if first.Totals.Done != 0 || first.Totals.Todo != 2 {
		t.Fatalf("first board %+v", first.Totals)
	}
	f.do(t, "POST", "/test/request", `{"downloader":"alice"}`)
	f.do(t, "POST", "/test/done", `{"downloader":"alice","item":"item:1","bytes":{"data":1}}`)
	for {
		select {
		case b, ok := <-events:
			if !ok {
				t.Fatal("the stream ended before the done showed")
			}
			if b.Totals.Done == 1 {
				if b.Seq <= first.Seq {
					t.Fatalf("board %d after %d", b.Seq, first.Seq)
				}
				return
			}
		case <-ctx.Done():
			t.Fatal("the done never showed on the stream")
		}
	}
}
