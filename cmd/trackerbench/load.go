package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// load is one scenario's run against a tracker: warriors (and grab scripts,
// and page readers) looping until the time is up.
type load struct {
	base        string // tracker URL
	project     string
	backfeedKey string
	multi       int
	// results: dones carry a result for each item; outcomes: an outcome.
	results, outcomes bool
	// repeat: each done is sent again once acknowledged, as seesaw sends
	// it when the answer was lost; the second completes nothing.
	repeat bool
	// backfeedEvery is how long a grab script waits after each post it
	// got through (0: it posts again at once).
	backfeedEvery time.Duration

	items  atomic.Int64 // items completed (or names backfed)
	stats  *stats
	seenMu sync.Mutex
	seen   []string     // names backfed lately: half of each post repeats them
	sample atomic.Value // a name handed out lately, for lookups

	// Warriors' requests answered, and those answered with items.
	requests, served atomic.Int64
}

// client is one keep-alive HTTP client, as one warrior holds.
func client() *http.Client {
	return &http.Client{
		Timeout: 20 * time.Second, // seesaw's own timeout
		Transport: &http.Transport{
			MaxIdleConnsPerHost: 1,
			DisableCompression:  true,
		},
	}
}

func (l *load) post(ctx context.Context, c *http.Client, endpoint, path, contentType string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", contentType)
	return l.do(c, endpoint, req)
}

func (l *load) do(c *http.Client, endpoint string, req *http.Request) (int, []byte, error) {
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		if req.Context().Err() != nil {
			return 0, nil, req.Context().Err()
		}
		l.stats.record(endpoint, time.Since(start), 0, "")
		return 0, nil, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if req.Context().Err() != nil {
		return 0, nil, req.Context().Err() // cut off by the end of the run: not counted
	}
	l.stats.record(endpoint, time.Since(start), resp.StatusCode, resp.Header.Get("X-Tracker-Reason"))
	return resp.StatusCode, b, err
}

// warrior loops request → done, with n items a request (n > 1: multi).
func (l *load) warrior(ctx context.Context, nick string, n int) {
	c := client()
	path := "/" + l.project + "/request"
	if n > 1 {
		path = fmt.Sprintf("/%s/multi=%d//request", l.project, n)
	}
	reqBody, _ := json.Marshal(map[string]string{"downloader": nick, "api_version": "2", "version": "20260101.01"})
	for ctx.Err() == nil {
		code, body, err := l.post(ctx, c, "request", path, "application/json", reqBody)
		if err == nil || !errors.Is(err, ctx.Err()) { // as l.stats counts it
			l.requests.Add(1)
			if err == nil && code == http.StatusOK {
				l.served.Add(1)
			}
		}
		if err != nil || code != http.StatusOK {
			pause(ctx, code)
			continue
		}
		var item struct {
			Name string `json:"item_name"`
		}
		if json.Unmarshal(body, &item) != nil {
			continue
		}
		names := strings.Split(item.Name, "\x00")
		l.sample.Store(names[0])
		report := map[string]any{
			"downloader": nick, "version": "20260101.01", "item": item.Name,
			"bytes": map[string]int{"data": 1000 * len(names)}, "id": map[string]string{"sha1": "0"},
		}
		if l.results {
			results := map[string]any{}
			for _, name := range names {
				results[name] = map[string]any{"ok": true, "took_ms": 1200}
			}
			report["result"] = results
		}
		if l.outcomes {
			outcomes := map[string]string{}
			for i, name := range names {
				outcomes[name] = [...]string{"none", "some", "full"}[(len(name)+i)%3]
			}
			report["outcome"] = outcomes
		}
		done, _ := json.Marshal(report)
		// A done is retried until it is acknowledged, as seesaw does.
		for ctx.Err() == nil {
			code, body, err := l.post(ctx, c, "done", "/"+l.project+"/done", "application/json", done)
			if err == nil && code == http.StatusOK && string(body) == "OK" {
				l.items.Add(int64(len(names)))
				break
			}
			pause(ctx, code)
		}
		if l.repeat && ctx.Err() == nil {
			l.post(ctx, c, "done again", "/"+l.project+"/done", "application/json", done)
		}
	}
}

// grabScript posts batches of 400 names, half of them seen before.
func (l *load) grabScript(ctx context.Context, id int) {
	c := client()
	path := fmt.Sprintf("/backfeed/legacy/%s-%s?shard=%d", l.project, l.backfeedKey, id)
	for i := 0; ctx.Err() == nil; i++ {
		var buf bytes.Buffer
		fresh := make([]string, 0, 200)
		for j := range 200 {
			fresh = append(fresh, fmt.Sprintf("url:https://example.org/%d/%d/%d", id, i, j))
		}
		l.seenMu.Lock()
		old := l.seen
		if len(old) > 200 {
			old = old[len(old)-200:]
		}
		l.seenMu.Unlock()
		for _, n := range fresh {
			buf.WriteString(n)
			buf.WriteByte(0)
		}
		for _, n := range old {
			buf.WriteString(n)
			buf.WriteByte(0)
		}
		code, _, err := l.post(ctx, c, "backfeed", path, "application/x-www-form-urlencoded", buf.Bytes())
		if err != nil || code != http.StatusOK {
			pause(ctx, code)
			continue
		}
		l.items.Add(int64(len(fresh) + len(old)))
		l.seenMu.Lock()
		l.seen = append(l.seen[max(0, len(l.seen)-10_000):], fresh...)
		l.seenMu.Unlock()
		if l.backfeedEvery > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(l.backfeedEvery):
			}
		}
	}
}

// reader looks items up and reads the project's pages, as volunteers do.
func (l *load) reader(ctx context.Context) {
	c := client()
	for ctx.Err() == nil {
		name, _ := l.sample.Load().(string)
		if name == "" {
			name = "item:1"
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, l.base+"/"+l.project+"/items/"+url.PathEscape(name)+".json", nil)
		l.do(c, "lookup", req)
		req, _ = http.NewRequestWithContext(ctx, http.MethodGet, l.base+"/", nil)
		l.do(c, "page", req)
	}
}

// pause backs off a little after a refusal, far less than a real warrior
// (60 s) so a run measures the tracker rather than the back-off.
func pause(ctx context.Context, code int) {
	d := 10 * time.Millisecond
	if code == http.StatusNotFound {
		d = 100 * time.Millisecond
	}
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
