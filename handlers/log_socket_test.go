package handlers_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	socketio "github.com/googollee/go-socket.io"

	"tracker/handlers"
	"tracker/stats"
)

// doneAs reports items done as a warrior whose client sends userAgent.
func (f fixture) doneAs(t *testing.T, userAgent, body string) {
	t.Helper()
	req, err := http.NewRequest("POST", f.srv.URL+"/test/done", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", userAgent)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "OK" {
		t.Fatalf("done: %d %q", resp.StatusCode, b)
	}
}

// A log reader built on the socket.io 0.9 client ArchiveTeam's tools use
// (go-at-logstream: socketio.Dial(".../{project}-log"), event
// "log_message") joins a project's log and is told each done, with the
// original tracker's fields.
func TestLiveLogSocketIOClient(t *testing.T) {
	t.Parallel()
	f := setup(t, "a:1", "a:2", "a:3").second(t)

	client, err := socketio.Dial(f.srv.URL + "/test-log")
	if err != nil {
		t.Fatal(err)
	}
	connected := make(chan string, 1)
	got := make(chan string, 16)
	if err := client.On("connect", func(ns *socketio.NameSpace) { connected <- ns.Endpoint() }); err != nil {
		t.Fatal(err)
	}
	if err := client.On("log_message", func(_ *socketio.NameSpace, message string) { got <- message }); err != nil {
		t.Fatal(err)
	}
	go client.Run()
	t.Cleanup(func() { client.Quit() })
	select {
	case ns := <-connected:
		if ns != "/test-log" {
			t.Fatalf("connected to %q", ns)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the namespace was never acknowledged")
	}

	names, a := f.request(t, "alice", 2)
	if len(names) != 2 {
		t.Fatalf("request: %v %d %s", names, a.status, a.reason)
	}
	ua := "ArchiveTeam Warrior/0.10.3 Warrior 5"
	f.doneAs(t, ua, `{"downloader":"alice","item":`+jsonString(strings.Join(names, "\x00"))+
		`,"bytes":{"data":2097152},"version":"20240101.01"}`)

	var msg struct {
		Project     string           `json:"project"`
		Downloader  string           `json:"downloader"`
		UserAgent   string           `json:"user_agent"`
		Item        string           `json:"item"`
		Items       []string         `json:"items"`
		Megabytes   float64          `json:"megabytes"`
		Bytes       int64            `json:"bytes"`
		DomainBytes map[string]int64 `json:"domain_bytes"`
		Version     string           `json:"version"`
		LogChannel  string           `json:"log_channel"`
		IsDuplicate *bool            `json:"is_duplicate"`
		Valid       bool             `json:"valid"`
		TS          float64          `json:"ts"`
		Counts      map[string]int64 `json:"counts"`
	}
	select {
	case m := <-got:
		if err := json.Unmarshal([]byte(m), &msg); err != nil {
			t.Fatalf("log_message %q: %v", m, err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("no log_message within 15 s of the done")
	}
	if msg.Project != "test" || msg.Downloader != "alice" || msg.UserAgent != ua || msg.Item != "a:1" ||
		strings.Join(msg.Items, ",") != "a:1,a:2" || msg.Megabytes != 2 || msg.Bytes != 2097152 ||
		msg.DomainBytes["data"] != 2097152 || len(msg.DomainBytes) != 1 || msg.Version != "20240101.01" ||
		msg.LogChannel != "test-log" || msg.IsDuplicate == nil || *msg.IsDuplicate || !msg.Valid {
		t.Fatalf("message %+v", msg)
	}
	if at := time.UnixMilli(int64(msg.TS * 1000)); time.Since(at).Abs() > time.Minute {
		t.Fatalf("ts %v", msg.TS)
	}
	if msg.Counts["todo"] != 1 || msg.Counts["out"] != 0 || msg.Counts["done"] != 2 {
		t.Fatalf("counts %v", msg.Counts)
	}
	// One message per done request: nothing else came.
	select {
	case m := <-got:
		t.Fatalf("a second message: %s", m)
	case <-time.After(2500 * time.Millisecond):
	}
}

// GET /recent/{slug}-log answers the newest 20 messages, oldest first, for
// any page, also once the rollup folded their tallies; a hidden project's
// or an unknown one's log is not served.
func TestLiveLogRecent(t *testing.T) {
	t.Parallel()
	var names []string
	for i := 1; i <= 25; i++ {
		names = append(names, "a:"+string(rune('a'+i/10))+string(rune('0'+i%10)))
	}
	f := setup(t, names...).second(t)
	for range names {
		got, _ := f.request(t, "alice", 1)
		f.doneAs(t, "ArchiveTeam Warrior/0.10.3 Standalone", `{"downloader":"alice","item":`+jsonString(got[0])+`,"bytes":{"data":10},"version":"1"}`)
	}
	recent := func(f fixture, path string) ([]map[string]any, answer) {
		t.Helper()
		a := f.do(t, "GET", path, "")
		var msgs []map[string]any
		if a.status == 200 {
			if err := json.Unmarshal([]byte(a.body), &msgs); err != nil {
				t.Fatalf("%s: %q: %v", path, a.body, err)
			}
		}
		return msgs, a
	}
	check := func(f fixture, stage string) {
		t.Helper()
		msgs, a := recent(f, "/recent/test-log")
		if a.status != 200 || a.header.Get("Access-Control-Allow-Origin") != "*" || a.header.Get("Content-Type") != "application/json" {
			t.Fatalf("%s: %d %s %v", stage, a.status, a.reason, a.header)
		}
		if len(msgs) != 20 || msgs[0]["item"] != names[5] || msgs[19]["item"] != names[24] {
			t.Fatalf("%s: %d messages, %v ... %v", stage, len(msgs), msgs[0]["item"], msgs[len(msgs)-1]["item"])
		}
		if m := msgs[19]; m["user_agent"] != "ArchiveTeam Warrior/0.10.3 Standalone" || m["version"] != "1" ||
			m["log_channel"] != "test-log" || m["downloader"] != "alice" {
			t.Fatalf("%s: %v", stage, m)
		}
	}
	check(f, "pending tallies")

	// Folded, the dones are read from the feed, details and all, by a
	// process that never saw them pending.
	if _, err := stats.NewStore(f.pool).Fold(context.Background()); err != nil {
		t.Fatal(err)
	}
	check(f.second(t), "folded")

	for path, reason := range map[string]string{"/recent/test": "unknown-project", "/recent/nope-log": "unknown-project", "/recent/-log": "unknown-project"} {
		if _, a := recent(f, path); a.status != 404 || a.reason != reason {
			t.Errorf("%s: %d %s", path, a.status, a.reason)
		}
	}
	f.set(t, "hidden=true")
	if _, a := recent(f, "/recent/test-log"); a.status != 404 || a.reason != "unknown-project" {
		t.Errorf("a hidden project's log: %d %s", a.status, a.reason)
	}
}

// The log over xhr-polling, as socket.io 0.9's browser client speaks it; a
// session holds a live stream's slot until it ends, and a project hidden
// meanwhile leaves its namespace.
func TestLiveLogPollingAndLimits(t *testing.T) {
	t.Parallel()
	f := setup(t, "a:1", "a:2")
	f = f.serve(t, io.Discard, nil, func(c *handlers.Config) {
		c.Streams = handlers.StreamLimits{Total: 10, PerAddress: 1, Lifetime: time.Hour}
	})

	req, _ := http.NewRequest("GET", f.srv.URL+"/socket.io/1/?t=1", nil)
	req.Header.Set("Origin", "https://leaderboard.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	hs, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`^([0-9A-Za-z]+):60:60:websocket,xhr-polling$`).FindStringSubmatch(string(hs))
	if resp.StatusCode != 200 || m == nil || resp.Header.Get("Access-Control-Allow-Origin") != "https://leaderboard.example" ||
		resp.Header.Get("Access-Control-Allow-Credentials") != "true" {
		t.Fatalf("handshake: %d %q %v", resp.StatusCode, hs, resp.Header)
	}
	if a := f.do(t, "GET", "/socket.io/1/?jsonp=3", ""); a.status != 200 ||
		!regexp.MustCompile(`^io\.j\[3\]\("[0-9A-Za-z]+:60:60:websocket,xhr-polling"\);$`).MatchString(a.body) {
		t.Fatalf("handshake by script: %d %q", a.status, a.body)
	}
	poll := "/socket.io/1/xhr-polling/" + m[1]
	get := func(want string) string {
		t.Helper()
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); {
			a := f.do(t, "GET", poll+"?t=2", "")
			if a.status != 200 {
				t.Fatalf("poll: %d %s %q", a.status, a.reason, a.body)
			}
			if strings.Contains(a.body, want) {
				return a.body
			}
		}
		t.Fatalf("no %q within 15 s", want)
		return ""
	}
	post := func(packets string) {
		t.Helper()
		if a := f.doBody(t, "POST", poll, "text/plain;charset=UTF-8", packets); a.status != 200 || a.body != "1" {
			t.Fatalf("post %q: %d %s %q", packets, a.status, a.reason, a.body)
		}
	}
	if body := get("1::"); body != "1::" {
		t.Fatalf("first poll: %q", body)
	}
	// Two packets in one post, framed as the browser client frames them.
	post("\ufffd3\ufffd2::\ufffd12\ufffd1::/test-log")
	get("1::/test-log")

	// The session holds the address's one slot.
	ctx := context.Background()
	wsURL := "ws" + strings.TrimPrefix(f.srv.URL, "http") + "/socket.io/1/websocket/" + m[1]
	if _, resp, err := websocket.Dial(ctx, wsURL, nil); err == nil || resp == nil || resp.StatusCode != 503 ||
		resp.Header.Get("X-Tracker-Reason") != "too-many-streams" {
		t.Fatalf("a websocket past the limit: %v %v", resp, err)
	}

	names, _ := f.request(t, "bob", 1)
	f.done(t, "bob", names...)
	body := get("5::/test-log:")
	for _, packet := range splitPayload(body) {
		if !strings.HasPrefix(packet, "5::/test-log:") {
			continue
		}
		var event struct {
			Name string   `json:"name"`
			Args []string `json:"args"`
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(packet, "5::/test-log:")), &event); err != nil || event.Name != "log_message" || len(event.Args) != 1 {
			t.Fatalf("event %q: %v", packet, err)
		}
		var msg map[string]any
		if err := json.Unmarshal([]byte(event.Args[0]), &msg); err != nil || msg["downloader"] != "bob" || msg["item"] != names[0] {
			t.Fatalf("message %q: %v", event.Args[0], err)
		}
	}

	// Hidden, the project's namespace is disconnected and cannot be joined.
	f.set(t, "hidden=true")
	get("0::/test-log")
	post("1::/test-log")
	get("7::/test-log:unknown-project")

	// The client leaves: its slot is free again.
	post("0::")
	for deadline := time.Now().Add(10 * time.Second); ; {
		conn, resp, err := websocket.Dial(ctx, wsURL, nil)
		if err == nil {
			_, data, err := conn.Read(ctx)
			conn.CloseNow()
			if err != nil || string(data) != "1::" {
				t.Fatalf("websocket: %q %v", data, err)
			}
			break
		}
		if resp == nil || resp.StatusCode != 503 || time.Now().After(deadline) {
			t.Fatalf("a websocket once the polling session ended: %v %v", resp, err)
		}
	}
	// A session this process does not know, made longer ago than a
	// session outlives its last poll, is told to shake hands again.
	old := m[1][:16] + strconv.FormatInt(time.Now().Add(-2*time.Minute).Unix(), 36)
	if a := f.do(t, "GET", "/socket.io/1/xhr-polling/"+old, ""); a.status != 200 || a.body != "7:::1+0" {
		t.Fatalf("a poll of a forgotten session: %d %q", a.status, a.body)
	}
}

// splitPayload splits a socket.io 0.9 payload into its packets.
func splitPayload(body string) []string {
	if !strings.HasPrefix(body, "\ufffd") {
		return []string{body}
	}
	var out []string
	for _, part := range strings.Split(body, "\ufffd")[1:] {
		if part != "" && strings.Trim(part, "0123456789") != "" {
			out = append(out, part)
		}
	}
	return out
}
