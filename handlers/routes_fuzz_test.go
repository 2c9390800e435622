package handlers_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http/httpguts"

	"tracker/db/dbtest"
	"tracker/handlers"
	"tracker/items"
	"tracker/users"
)

// Case flags: which of the usual headers a case sends besides its own.
const (
	fuzzAdmin      = 1 << iota // the signed-in admin's session cookie
	fuzzSameOrigin             // Sec-Fetch-Site: same-origin, as a browser's form post
	fuzzForm                   // Content-Type: application/x-www-form-urlencoded
	fuzzJSON                   // Content-Type: application/json
)

// FuzzRoutes sends requests of any method, path, headers and body through
// the whole route table, over a real database holding a project with items
// and with, for half the cases, a signed-in admin's cookie: whatever comes
// in, the answer is never a 5xx (the database is up) and nothing is logged
// as an error, and every answer but a success or a redirect says why in
// X-Tracker-Reason. Requests are read from raw bytes by the server's own parser;
// what it refuses never reaches a handler and is skipped.
func FuzzRoutes(f *testing.F) {
	pool := dbtest.New(f)
	ctx := context.Background()
	p := dbtest.Project(f, pool, "test", "Test project")
	dbtest.Project(f, pool, "other", "Another project")
	logs := &errorLog{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelError}))
	names := "item:1\nitem:2\nitem:3\nuser:alice\nhttps://example.com/a//b?c=d\nitem:4\nitem:5"
	if _, err := items.NewEngine(pool, log).Add(ctx, p, "todo", strings.NewReader(names)); err != nil {
		f.Fatal(err)
	}
	accounts := users.NewStore(pool)
	const password = "correct horse battery"
	root, err := accounts.Create(ctx, "root", password, users.RoleAdmin)
	if err != nil {
		f.Fatal(err)
	}
	if _, err := accounts.Create(ctx, "helper", password, users.RoleProjectAdmin); err != nil {
		f.Fatal(err)
	}
	h := newHandler(log, pool)
	f.Cleanup(h.Close)
	// Live streams end after their first event: a case is one answer.
	h.EndStreams()
	routes := h.Routes()
	// What the server's own parser refuses goes to a real server, served as
	// serve serves it: its refusals must say why too.
	real := httptest.NewUnstartedServer(nil)
	ln := h.Listen(real.Listener, handlers.DefaultConnLimits)
	real.Listener, real.Config = ln, h.Server(ln)
	real.Start()
	f.Cleanup(real.Close)

	// The admin's session, renewed when a case has ended it (a logout, a
	// change of the admin's password or role).
	var cookie string
	signIn := func() int {
		form := url.Values{"username": {"root"}, "password": {password}}.Encode()
		req := httptest.NewRequest("POST", "/admin/login", strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		// Not the cases' address: their failed sign-ins do not throttle this one.
		req.RemoteAddr = "198.51.100.7:1234"
		rec := httptest.NewRecorder()
		routes.ServeHTTP(rec, req)
		cookie = strings.Split(rec.Header().Get("Set-Cookie"), ";")[0]
		return rec.Code
	}
	login := func(t testing.TB) {
		t.Helper()
		if signIn() == http.StatusSeeOther {
			return
		}
		// A case changed the admin's password or role.
		if err := accounts.SetPassword(ctx, root, password); err != nil {
			t.Fatalf("admin's password: %v", err)
		}
		if err := accounts.SetRole(ctx, root, users.RoleAdmin); err != nil {
			t.Fatalf("admin's role: %v", err)
		}
		if code := signIn(); code != http.StatusSeeOther {
			t.Fatalf("admin sign-in: %d", code)
		}
	}
	signedIn := func() bool {
		req := httptest.NewRequest("GET", "/admin/", nil)
		req.Header.Set("Cookie", cookie)
		rec := httptest.NewRecorder()
		routes.ServeHTTP(rec, req)
		return rec.Code == http.StatusOK
	}
	login(f)

	const admin, post, form, json = fuzzAdmin, fuzzAdmin | fuzzSameOrigin | fuzzForm, fuzzForm, fuzzJSON
	key := p.Config.BackfeedKey
	for _, c := range []struct {
		method, path, headers string
		flags                 byte
		body                  string
	}{
		// Text that is no text.
		{"GET", "/%00/", "", 0, ""},
		{"GET", "/%ff/stats.json", "", 0, ""},
		{"GET", "/demo/downloader/%ff", "", 0, ""},
		{"GET", "/test/downloader/%ff", "", 0, ""},
		{"GET", "/%00/events", "", 0, ""},
		{"POST", "/backfeed/legacy/%00-x", "", 0, "a\x00b"},
		{"GET", "/admin/audit?user=%ff", "", admin, ""},
		{"GET", "/admin/projects/test/claims?prefix=%00", "", admin, ""},
		{"POST", "/admin/projects/test/claims/release", "", post, "prefix=%00"},
		// Public pages.
		{"GET", "/", "", 0, ""},
		{"GET", "/projects.json", "Accept-Encoding: gzip", 0, ""},
		{"GET", "/test/", "", 0, ""},
		{"GET", "/test/?period=24h&order=items&page=2&all=1&span=week&item=item:1", "", 0, ""},
		{"GET", "/test/stats.json", "If-None-Match: \"x\"", 0, ""},
		{"GET", "/test/charts.json?span=month&downloader=alice", "", 0, ""},
		{"GET", "/test/chart?span=week", "If-None-Match: \"x\"", 0, ""},
		{"GET", "/test/events", "Last-Event-ID: 12345", 0, ""},
		{"GET", "/test/downloader/alice", "", 0, ""},
		{"GET", "/downloader/alice/", "", 0, ""},
		{"GET", "/warriors/", "", 0, ""},
		{"GET", "/metrics", "", 0, ""},
		{"GET", "/healthz", "", 0, ""},
		{"GET", "/static/style.css", "", 0, ""},
		{"GET", "/test/items/item:1.json?shard=s", "", 0, ""},
		{"GET", "/test/items/https://example.com/a//b%3Fc=d.json", "", 0, ""},
		{"GET", "/test/?page=99999999999999999999&period=x&order=y&span=z", "", 0, ""},
		{"GET", "/test/?page=-1", "", 0, ""},
		{"GET", "/test/charts.json?span=all&downloader=" + strings.Repeat("x", 300), "", 0, ""},
		// The warrior protocol.
		{"POST", "/test/request", "", json, `{"downloader":"alice","api_version":"2","version":"20240101.01"}`},
		{"POST", "/test/multi=3//request", "", json, `{"downloader":"bob","api_version":"2"}`},
		{"POST", "/test/done", "", json, `{"downloader":"alice","item":"item:1","bytes":{"data":12},"id":{"x":1}}`},
		{"POST", "/test/done+request", "", json, `{"downloader":"alice","item":"item:2\u0000item:3","bytes":{"data":1}}`},
		{"POST", "/test/done", "", json, `{"downloader":"alice","item":"item:1","bytes":{"data":9223372036854775807,"x":9223372036854775807}}`},
		{"POST", "/test/done", "", json, `{"downloader":"alice","item":"item:1","bytes":{"data":-1}}`},
		{"POST", "/test/release", "", json, `{"item":"item:4","downloader":"alice"}`},
		{"POST", "/test/upload", "", json, `{"downloader":"alice","item_name":"item:1","version":"1"}`},
		{"POST", "/test/uploaded", "", json, `{"uploader":"alice","item":"item:1","server":"up.example"}`},
		{"GET", "/test/request", "", 0, ""},
		{"POST", "/test/multi=0/request", "", json, "{}"},
		// The warrior HQ.
		{"POST", "/api/register.json", "User-Agent: ArchiveTeam Warrior/0.10.3 docker 1", json, `{"warrior":{"version":"0.10.3"}}`},
		{"POST", "/api/register.json", "", json, `{"warrior":{"version":"\u0000"}}`},
		{"POST", "/api/update.json", "", json, `{"warrior":{"warrior_id":"x","lat_lng":"51.5,-0.1","downloader":"alice","selected_project":"test"}}`},
		{"POST", "/api/update.json", "User-Agent: ArchiveTeam Warrior/\xff docker", json,
			`{"warrior":{"warrior_id":"\u0000","lat_lng":"1e400,-0.1","downloader":"\ud800","selected_project":"\u0000"}}`},
		// Backfeed.
		{"POST", "/backfeed/legacy/test-" + key, "", form, "item:9\x00item:10"},
		{"POST", "/backfeed/legacy/test-" + key + "?shard=s1&delimiter=%0A&itemseparator=%1F", "", 0, "k1\x1fitem:11\nk2"},
		{"POST", "/backfeed/legacy/test-wrong", "", 0, "x"},
		{"GET", "/backfeed/legacy/test-" + key, "", 0, ""},
		{"GET", "/api/register.json", "", 0, ""},
		{"PUT", "/api/update.json", "", json, "{}"},
		// The admin panel.
		{"GET", "/admin/login?next=/admin/audit", "", 0, ""},
		// (A sign-in that reaches the password check costs a bcrypt hash.)
		{"POST", "/admin/login", "", fuzzSameOrigin | form, "username=nobody%00&password=nope"},
		{"GET", "/admin/", "", admin, ""},
		{"GET", "/admin/projects/test/", "", admin, ""},
		{"GET", "/admin/projects/test/?item=item:1", "", admin, ""},
		{"GET", "/admin/projects/test/queues", "", admin, ""},
		{"GET", "/admin/projects/test/feeds", "", admin, ""},
		{"GET", "/admin/projects/test/claims?page=2&downloader=alice", "", admin, ""},
		{"GET", "/admin/projects/test/claims?page=-5&pattern=(&older_than=99999999999h", "", admin, ""},
		{"GET", "/admin/projects/test/claims?page=9223372036854775807", "", admin, ""},
		{"GET", "/admin/projects/test/limits", "", admin, ""},
		{"GET", "/admin/projects/test/warriors", "", admin, ""},
		{"GET", "/admin/projects/test/archive", "", admin, ""},
		{"GET", "/admin/projects/test/danger", "", admin, ""},
		{"GET", "/admin/projects/test/browse?source=claims&after=1700000000000000.5&contains=(&regex=1", "", admin, ""},
		{"GET", "/admin/projects/test/browse?source=done&before=end&per=500&prefix=item:", "", admin, ""},
		{"GET", "/admin/projects/test/item?name=item:1&find=item&from=claims&after=-1.-1", "", admin, ""},
		{"POST", "/admin/projects/test/browse/move", "", post, "source=todo&to=redo&name=item:1&name=item:2&confirmed=1"},
		{"POST", "/admin/projects/test/browse/requeue", "", post, "source=scheduled&queue=&name=item:1"},
		{"GET", "/admin/settings", "", admin, ""},
		{"GET", "/admin/audit?user=root&action=login&page=3", "", admin, ""},
		{"GET", "/admin/audit?page=-1&project=x", "", admin, ""},
		{"GET", "/admin/audit?page=9223372036854775807", "", admin, ""},
		{"GET", "/admin/users", "", admin, ""},
		{"GET", "/admin/no/such/page", "", admin, ""},
		{"POST", "/admin/projects", "", post, "slug=new-one&title=New"},
		{"POST", "/admin/projects/test/config", "", post, "section=limits&rate_limit=60&type_limits=post:10&min_version=1.2"},
		{"POST", "/admin/projects/test/config", "", post, "section=limits&rate_limit=99999999999999999999&claims_limit=-1"},
		{"POST", "/admin/projects/test/config", "", post, "section=claims&reclaim_ttl=9223372036854775807&downloader_claims_limit=2147483648"},
		{"POST", "/admin/projects/test/config", "", post, "section=queues&max_multi=2147483648&order=random"},
		{"POST", "/admin/projects/test/config", "", post, "section=archive&archive_after=9223372036854775807&archive_mode=discard"},
		{"POST", "/admin/projects/test/config", "", post, "section=warriors&deadline=2030-01-01T00:00&lat_lng=1,2&hidden=true"},
		{"POST", "/admin/projects/test/config", "", post, "section=warriors&deadline=99999-01-01T00:00&lat_lng=1e400,2"},
		{"POST", "/admin/projects/test/pause", "", post, ""},
		{"POST", "/admin/projects/test/resume", "", post, ""},
		{"POST", "/admin/projects/test/items", "Content-Type: multipart/form-data; boundary=b", fuzzAdmin | fuzzSameOrigin,
			"--b\r\nContent-Disposition: form-data; name=\"queue\"\r\n\r\nredo\r\n--b\r\nContent-Disposition: form-data; name=\"names\"\r\n\r\nitem:20\nitem:21\r\n--b--\r\n"},
		{"POST", "/admin/projects/test/items", "Content-Type: multipart/form-data; boundary=b", fuzzAdmin | fuzzSameOrigin,
			strings.Repeat("--b\r\nContent-Disposition: form-data; name=\"names\"\r\n\r\nitem:22\r\n", 20) + "--b--\r\n"},
		{"POST", "/admin/projects/test/queues/move", "", post, "from=todo&to=redo&pattern=^item:[0-9]$"},
		{"POST", "/admin/projects/test/queues/move", "", post, "from=todo&to=downloader:&pattern=a{99999}&confirmed=1"},
		{"POST", "/admin/projects/test/queues/drain", "", post, "from=redo&confirm=redo&confirmed=1&prefix=item"},
		{"POST", "/admin/projects/test/done/requeue", "", post, "queue=redo&pattern=(&confirmed=1"},
		{"POST", "/admin/projects/test/item/release", "", post, "name=item:1"},
		{"POST", "/admin/projects/test/item/requeue", "", post, "name=item:1&queue=downloader:alice"},
		{"POST", "/admin/projects/test/item/done", "", post, "name=item:2"},
		{"POST", "/admin/projects/test/claims/release", "", post, "downloader=alice&older_than=1h&confirmed=1"},
		{"POST", "/admin/projects/test/claims/release", "", post, "older_than=9999999999999h&confirmed=1"},
		{"POST", "/admin/projects/test/claims/release", "", post, "pattern=[&confirmed=1"},
		{"POST", "/admin/projects/test/blocks/add", "", post, "kind=ip&value=2001:db8::/32&reason=x&scope=all"},
		{"POST", "/admin/projects/test/blocks/remove", "", post, "kind=nick&value=bob"},
		{"POST", "/admin/projects/test/targets/add", "", post, "url=rsync://up.example/:downloader/&weight=3&enabled=true"},
		{"POST", "/admin/projects/test/targets/add", "", post, "url=http://x/&weight=99999999999"},
		{"POST", "/admin/projects/test/targets/remove", "", post, "url=rsync://up.example/:downloader/"},
		{"POST", "/admin/projects/test/backfeed-key", "", post, ""},
		{"POST", "/admin/projects/other/delete", "", post, "confirm=x"},
		{"POST", "/admin/settings", "", post, "seesaw_version=0.8.5&auto_project=test&broadcast_message=<b>hi</b>"},
		{"POST", "/admin/users", "", post, "username=carol&password=correct+horse+battery&role=project_admin"},
		{"POST", "/admin/users/2/password", "", post, "password=another+long+password"},
		{"POST", "/admin/users/2/role", "", post, "role=admin"},
		{"POST", "/admin/users/2/grant", "", post, "project=test"},
		{"POST", "/admin/users/2/revoke", "", post, "project=test"},
		{"POST", "/admin/users/99/delete", "", post, "confirm=x&confirmed=1"},
		{"POST", "/admin/users/99999999999/role", "", post, "role=admin"},
		{"POST", "/admin/users/-1/grant", "", post, "project=nope"},
		{"POST", "/admin/projects/test/pause", "Origin: https://elsewhere.example", admin | form, ""},
		{"POST", "/admin/logout", "", fuzzAdmin | fuzzSameOrigin, ""},
		{"POST", "/test/request/", "", json, `{"downloader":"alice"}`},
		{"DELETE", "/test/", "", 0, ""},
		{"PUT", "/admin/projects/test/pause", "", admin | form, ""},
		{"GET", "*", "", 0, ""},
		// What Go's parser refuses, before any route.
		{"GET", "/a b", "", 0, ""},
		{"GET", "/ HTTP/9.9\r\nX:", "", 0, ""},
		{"G\x01T", "/", "", 0, ""},
		// Refusals written by libraries, and queries not read whole.
		{"GET", "/static/style.css", "Range: bytes=99999999-", 0, ""},
		{"GET", "/robots.txt", "If-Match: \"x\"", 0, ""},
		{"GET", "/socket.io/1/websocket/x", "Connection: Upgrade\nUpgrade: websocket", 0, ""},
		{"POST", "/admin/login", "", fuzzSameOrigin | form, "username=helper&password=wrong"},
		{"POST", "/backfeed/legacy/test-" + key + "?skipbloom=1;", "", form, "item:9"},
		{"GET", "/projects.json?callback=%zz", "", 0, ""},
	} {
		f.Add(c.method, c.path, c.headers, c.flags, []byte(c.body))
	}

	f.Fuzz(func(t *testing.T, method, path, headers string, flags byte, body []byte) {
		var raw bytes.Buffer
		fmt.Fprintf(&raw, "%s %s HTTP/1.1\r\nHost: tracker.example\r\n", method, path)
		for line := range strings.SplitSeq(headers, "\n") {
			name, value, ok := strings.Cut(line, ":")
			name, value = strings.TrimSpace(name), strings.TrimSpace(value)
			// The server refuses what these refuse, before any handler.
			if !ok || !httpguts.ValidHeaderFieldName(name) || !httpguts.ValidHeaderFieldValue(value) ||
				strings.EqualFold(name, "Host") || strings.EqualFold(name, "Content-Length") ||
				strings.EqualFold(name, "Transfer-Encoding") {
				continue
			}
			fmt.Fprintf(&raw, "%s: %s\r\n", name, value)
		}
		asAdmin := flags&fuzzAdmin != 0
		if asAdmin {
			if cookie == "" {
				login(t)
			}
			fmt.Fprintf(&raw, "Cookie: %s\r\n", cookie)
		}
		if flags&fuzzSameOrigin != 0 {
			raw.WriteString("Sec-Fetch-Site: same-origin\r\n")
		}
		switch {
		case flags&fuzzForm != 0:
			raw.WriteString("Content-Type: application/x-www-form-urlencoded\r\n")
		case flags&fuzzJSON != 0:
			raw.WriteString("Content-Type: application/json\r\n")
		}
		fmt.Fprintf(&raw, "Content-Length: %d\r\n\r\n", len(body))
		raw.Write(body)
		sent := bytes.Clone(raw.Bytes())
		req, err := http.ReadRequest(bufio.NewReader(&raw))
		if err != nil || req.Method != method || !httpguts.ValidHostHeader(req.Host) {
			serverRefusal(t, real.Listener.Addr().String(), sent)
			return
		}
		req.RemoteAddr = "192.0.2.1:1234"
		rec := httptest.NewRecorder()
		routes.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %q: %d %s: %s", method, path, rec.Code, rec.Header().Get("X-Tracker-Reason"), rec.Body)
		}
		// Every answer but a success or a redirect says why, whichever
		// layer made it: a handler, the admin panel's pages, a library's.
		if (rec.Code < 200 || rec.Code >= 400) && rec.Header().Get("X-Tracker-Reason") == "" {
			t.Fatalf("%s %q: %d without a reason: %s", method, path, rec.Code, rec.Body)
		}
		if logged := logs.take(); logged != "" {
			t.Fatalf("%s %q: %d, logged: %s", method, path, rec.Code, logged)
		}
		// A case that may have ended the admin's session (a logout, a new
		// password or role): sign in again before the next needs it.
		if asAdmin && method == "POST" && !signedIn() {
			cookie = ""
		}
	})
}

// errorLog keeps what was logged at level ERROR.
type errorLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *errorLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(b)
}

func (l *errorLog) take() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.buf.String()
	l.buf.Reset()
	return s
}

// serverRefusal sends a request Go's parser refuses to a real server: its
// answer, when it gives one, is a refusal with its reason.
func serverRefusal(t *testing.T, addr string, request []byte) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.Write(request); err != nil {
		return // refused before it was all sent
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return // closed without an answer: a request cut short
	}
	resp.Body.Close()
	if resp.StatusCode < 400 || resp.Header.Get("X-Tracker-Reason") == "" {
		t.Fatalf("%q: %d %q, want a refusal with its reason", request, resp.StatusCode, resp.Header.Get("X-Tracker-Reason"))
	}
}
