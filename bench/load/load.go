// Package load holds the bench's clients: warriors, grab scripts, readers
// and admins that behave as the tracker's real clients do, each on a
// keep-alive connection of its own, and the record of their answers
// (latency by endpoint, non-2xx by reason) that the result table is made of.
package load

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

// Load is one scenario's run against a tracker: warriors (and grab
// scripts, and page readers) looping until the time is up, recording every
// answer into Stats. The fields a scenario sets come first; the counters
// after are read by the scenario once the clients return.
type Load struct {
	Base        string // tracker URL
	Project     string
	BackfeedKey string
	// Results: dones carry a result for each item; Outcomes: an outcome.
	Results, Outcomes bool
	// Repeat: each done is sent again once acknowledged, as seesaw sends
	// it when the answer was lost; the second completes nothing.
	Repeat bool
	// BackfeedEvery is how long a grab script waits after each post it
	// got through (0: it posts again at once).
	BackfeedEvery time.Duration
	// Stats records every answer; several loads may share one (the
	// field's tracker processes).
	Stats *Stats

	Items atomic.Int64 // items completed (or names backfed)
	// Warriors' requests answered, and those answered with items.
	Requests, Served atomic.Int64

	seenMu sync.Mutex
	seen   []string     // names backfed lately: half of each post repeats them
	sample atomic.Value // a name handed out lately, for lookups
}

// Client is one keep-alive HTTP client, as one warrior holds: one idle
// connection, so a warrior is one connection to the tracker as in the field.
func Client() *http.Client {
	return &http.Client{
		Timeout: 20 * time.Second, // seesaw's own timeout
		Transport: &http.Transport{
			MaxIdleConnsPerHost: 1,
			DisableCompression:  true,
		},
	}
}

// Post sends a POST and records its answer under endpoint.
func (l *Load) Post(ctx context.Context, c *http.Client, endpoint, path, contentType string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.Base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", contentType)
	return l.Do(c, endpoint, req)
}

// Do sends req and records its answer under endpoint. An answer cut off by
// the end of the run (req's context) is not recorded: it would count the
// run's end as the tracker's latency.
func (l *Load) Do(c *http.Client, endpoint string, req *http.Request) (int, []byte, error) {
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		if req.Context().Err() != nil {
			return 0, nil, req.Context().Err()
		}
		l.Stats.Record(endpoint, time.Since(start), 0, "")
		return 0, nil, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if req.Context().Err() != nil {
		return 0, nil, req.Context().Err() // cut off by the end of the run: not counted
	}
	l.Stats.Record(endpoint, time.Since(start), resp.StatusCode, resp.Header.Get("X-Tracker-Reason"))
	return resp.StatusCode, b, err
}

// Warrior loops request → done, with n items a request (n > 1: multi).
func (l *Load) Warrior(ctx context.Context, nick string, n int) {
	c := Client()
	path := "/" + l.Project + "/request"
	if n > 1 {
		path = fmt.Sprintf("/%s/multi=%d//request", l.Project, n)
	}
	reqBody, _ := json.Marshal(map[string]string{"downloader": nick, "api_version": "2", "version": "20260101.01"})
	for ctx.Err() == nil {
		code, body, err := l.Post(ctx, c, "request", path, "application/json", reqBody)
		if err == nil || !errors.Is(err, ctx.Err()) { // as l.Stats counts it
			l.Requests.Add(1)
			if err == nil && code == http.StatusOK {
				l.Served.Add(1)
			}
		}
		if err != nil || code != http.StatusOK {
			Pause(ctx, code)
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
		if l.Results {
			results := map[string]any{}
			for _, name := range names {
				results[name] = map[string]any{"ok": true, "took_ms": 1200}
			}
			report["result"] = results
		}
		if l.Outcomes {
			outcomes := map[string]string{}
			for i, name := range names {
				outcomes[name] = [...]string{"none", "some", "full"}[(len(name)+i)%3]
			}
			report["outcome"] = outcomes
		}
		done, _ := json.Marshal(report)
		// A done is retried until it is acknowledged, as seesaw does.
		for ctx.Err() == nil {
			code, body, err := l.Post(ctx, c, "done", "/"+l.Project+"/done", "application/json", done)
			if err == nil && code == http.StatusOK && string(body) == "OK" {
				l.Items.Add(int64(len(names)))
				break
			}
			Pause(ctx, code)
		}
		if l.Repeat && ctx.Err() == nil {
			l.Post(ctx, c, "done again", "/"+l.Project+"/done", "application/json", done)
		}
	}
}

// GrabScript posts batches of 400 names, half of them seen before.
func (l *Load) GrabScript(ctx context.Context, id int) {
	c := Client()
	path := fmt.Sprintf("/backfeed/legacy/%s-%s?shard=%d", l.Project, l.BackfeedKey, id)
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
		code, _, err := l.Post(ctx, c, "backfeed", path, "application/x-www-form-urlencoded", buf.Bytes())
		if err != nil || code != http.StatusOK {
			Pause(ctx, code)
			continue
		}
		l.Items.Add(int64(len(fresh) + len(old)))
		l.seenMu.Lock()
		l.seen = append(l.seen[max(0, len(l.seen)-10_000):], fresh...)
		l.seenMu.Unlock()
		if l.BackfeedEvery > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(l.BackfeedEvery):
			}
		}
	}
}

// Reader looks items up and reads the project's pages, as volunteers do.
func (l *Load) Reader(ctx context.Context) {
	c := Client()
	for ctx.Err() == nil {
		name, _ := l.sample.Load().(string)
		if name == "" {
			name = "item:1"
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, l.Base+"/"+l.Project+"/items/"+url.PathEscape(name)+".json", nil)
		l.Do(c, "lookup", req)
		req, _ = http.NewRequestWithContext(ctx, http.MethodGet, l.Base+"/", nil)
		l.Do(c, "page", req)
	}
}

// Pause backs off a little after a refusal, far less than a real warrior
// (60 s) so a run measures the tracker rather than the back-off.
func Pause(ctx context.Context, code int) {
	d := 10 * time.Millisecond
	if code == http.StatusNotFound {
		d = 100 * time.Millisecond
	}
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// Sleep waits d and says whether ctx is still live.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
