package handlers_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/users"
)

// rawExchange sends head and body on a new connection to f's server, closes
// its sending side (a client that half-closes), and returns every byte the
// server answered before it closed the connection.
func (f fixture) rawExchange(t *testing.T, head, body string) string {
	t.Helper()
	conn, err := net.Dial("tcp", f.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(conn, head+body); err != nil {
		t.Fatal(err)
	}
	if err := conn.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(conn)
	if err != nil {
		t.Fatalf("reading the answer: %v (read %q)", err, got)
	}
	return string(got)
}

// A backfeed post whose body ends before its Content-Length is the
// client's failure: 400 on the wire (in the JSON the scripts read), never a
// 503 or a made-up 499, nothing queued, nothing logged as an outage, and the
// backfeed key in no log line. A client that half-closes after a whole post
// gets its answer or none, never a 499.
func TestBackfeedBodyCutShort(t *testing.T) {
	t.Parallel()
	logs := &errorLog{}
	f := setup(t).serve(t, logs, nil)
	key := f.project.Config.BackfeedKey
	head := func(length int) string {
		return fmt.Sprintf("POST /backfeed/legacy/test-%s HTTP/1.1\r\nHost: tracker.example\r\n"+
			"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n", key, length)
	}

	body := "item:1\x00item:2\x00"
	got := f.rawExchange(t, head(len(body)+100), body)
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(got)), nil)
	if err != nil {
		t.Fatalf("answer %q: %v", got, err)
	}
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 400 || resp.Header.Get("X-Tracker-Reason") != "incomplete-body" || !strings.Contains(string(answer), `"status_code":400`) {
		t.Fatalf("a body cut short: %d %q %s", resp.StatusCode, resp.Header.Get("X-Tracker-Reason"), answer)
	}
	if s := f.summary(t); s.Queues["backfeed"] != 0 {
		t.Fatalf("%d items queued from a body cut short", s.Queues["backfeed"])
	}

	// The whole post, then the half-close: the server takes the end of
	// the client's input for the client leaving.
	for range 5 {
		got := f.rawExchange(t, head(len(body)), body)
		if got != "" && !strings.HasPrefix(got, "HTTP/1.1 200 ") {
			t.Fatalf("a whole post from a client that half-closed: %q", got)
		}
	}

	// The metrics tell the two apart: the client's failure, and the
	// clients gone (recorded as 499, never sent) or answered.
	m := f.metrics(t)
	count := func(code string) float64 {
		v, _ := metricValue(t, m, "tracker_http_requests_total", map[string]string{"route": "backfeed", "code": code})
		return v
	}
	if count("400") != 1 || count("499")+count("200") != 5 || count("503") != 0 {
		t.Fatalf("backfeed requests counted: 400 %v, 499 %v, 200 %v, 503 %v", count("400"), count("499"), count("200"), count("503"))
	}

	logged := logs.take()
	for _, bad := range []string{"database unavailable", "superfluous", "499", key} {
		if strings.Contains(logged, bad) {
			t.Fatalf("the log holds %q:\n%s", bad, logged)
		}
	}
}

// When the database is away, the warning names the backfeed address
// without its key.
func TestBackfeedKeyNotLogged(t *testing.T) {
	t.Parallel()
	// Nothing listens there: every statement fails to connect.
	pool, err := pgxpool.New(context.Background(), "postgres://tracker@127.0.0.1:1/none?connect_timeout=5")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	logs := &errorLog{}
	h := newHandler(slog.New(slog.NewTextHandler(logs, nil)), pool)
	t.Cleanup(h.Close)
	srv := httptest.NewServer(h.Routes())
	t.Cleanup(srv.Close)
	const key = "SecretBackfeedKey42"
	resp, err := http.Post(srv.URL+"/backfeed/legacy/some-project-"+key+"?shard=x", "application/x-www-form-urlencoded", strings.NewReader("item:1"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	logged := logs.take()
	if resp.StatusCode != 503 || !strings.Contains(logged, "database unavailable") || !strings.Contains(logged, "/backfeed/legacy/some-project-") {
		t.Fatalf("%d, logged: %s", resp.StatusCode, logged)
	}
	if strings.Contains(logged, key) {
		t.Fatalf("the key is in the log: %s", logged)
	}
}

// A warrior's done and an admin's items file cut short are the client's
// failures as well, whichever reader meets the end: 400 incomplete-body,
// nothing done or queued, nothing logged as an outage.
func TestBodiesCutShort(t *testing.T) {
	t.Parallel()
	logs := &errorLog{}
	f := setup(t, "item:1").serve(t, logs, nil)
	f.request(t, "alice", 1)
	f.user(t, "root", users.RoleAdmin)
	c := f.adminClient(t)
	if a := c.login(t, "root", "correct horse battery"); a.status != 303 {
		t.Fatalf("sign-in: %d", a.status)
	}
	srvURL, err := url.Parse(f.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	var cookies []string
	for _, ck := range c.client.Jar.Cookies(srvURL) {
		cookies = append(cookies, ck.Name+"="+ck.Value)
	}

	var upload strings.Builder
	mw := multipart.NewWriter(&upload)
	mw.WriteField("queue", "todo")
	fw, _ := mw.CreateFormFile("file", "items.txt")
	io.WriteString(fw, "cut:1\ncut:2\n") // and no closing boundary
	for _, post := range []struct{ path, header, body string }{
		{"/test/done", "Content-Type: application/json\r\n", `{"downloader":"alice","item":"item:1","bytes":{"da`},
		{"/admin/projects/test/items", "Content-Type: " + mw.FormDataContentType() + "\r\nSec-Fetch-Site: same-origin\r\nCookie: " +
			strings.Join(cookies, "; ") + "\r\n", upload.String()},
	} {
		head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: tracker.example\r\n%sContent-Length: %d\r\n\r\n", post.path, post.header, len(post.body)+100)
		got := f.rawExchange(t, head, post.body)
		resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(got)), nil)
		if err != nil {
			t.Fatalf("%s: answer %q: %v", post.path, got, err)
		}
		resp.Body.Close()
		if resp.StatusCode != 400 || resp.Header.Get("X-Tracker-Reason") != "incomplete-body" {
			t.Errorf("%s cut short: %d %q", post.path, resp.StatusCode, resp.Header.Get("X-Tracker-Reason"))
		}
	}
	if s := f.summary(t); s.Done != 0 || s.Claims != 1 || s.Queues["todo"] != 0 {
		t.Fatalf("bodies cut short changed something: %+v", s)
	}
	logged := logs.take()
	for _, bad := range []string{"database unavailable", "request failed", "superfluous", "499"} {
		if strings.Contains(logged, bad) {
			t.Fatalf("the log holds %q:\n%s", bad, logged)
		}
	}
}
