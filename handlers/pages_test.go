package handlers_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

func TestHealth(t *testing.T) {
	t.Parallel()
	f := setup(t)
	if a := f.do(t, "GET", "/healthz", ""); a.status != 200 {
		t.Fatalf("healthz %d %q", a.status, a.body)
	}
	f.pool.Close() // the database is gone for this server
	if a := f.do(t, "GET", "/healthz", ""); a.status != 503 || a.header.Get("Retry-After") == "" {
		t.Fatalf("healthz without a database: %d %q", a.status, a.body)
	}
}

func TestHomeListsProjects(t *testing.T) {
	t.Parallel()
	f := setup(t, "post:1")
	f.do(t, "POST", "/test/request", `{"downloader":"alice"}`)
	f.do(t, "POST", "/test/done", `{"downloader":"alice","item":"post:1","bytes":{"data":2048}}`)

	a := f.do(t, "GET", "/", "")
	if a.status != 200 || !strings.HasPrefix(a.header.Get("Content-Type"), "text/html") {
		t.Fatalf("home: %d %q", a.status, a.header.Get("Content-Type"))
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(a.body))
	if err != nil {
		t.Fatal(err)
	}
	rows := doc.Find(`[data-testid="project"]`)
	if rows.Length() != 1 {
		t.Fatalf("%d project rows", rows.Length())
	}
	text := rows.Text()
	for _, want := range []string{"Test project", "test", "1", "2.0 KiB"} {
		if !strings.Contains(text, want) {
			t.Errorf("project row %q lacks %q", text, want)
		}
	}
	if a := f.do(t, "GET", "/static/style.css", ""); a.status != 200 || !strings.Contains(a.body, "font-family") {
		t.Errorf("stylesheet: %d", a.status)
	}
	if a := f.do(t, "GET", "/nowhere/at/all", ""); a.status != 404 {
		t.Errorf("unknown page: %d", a.status)
	}
}

func (f fixture) page(t *testing.T, path string) (int, *goquery.Document) {
	t.Helper()
	a := f.do(t, "GET", path, "")
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(a.body))
	if err != nil {
		t.Fatal(err)
	}
	return a.status, doc
}

func TestLeaderboardPages(t *testing.T) {
	t.Parallel()
	f := setup(t, "post:1", "post:2", "post:3")
	f.do(t, "POST", "/test/multi=2//request", `{"downloader":"alice","version":"1"}`)
	f.do(t, "POST", "/test/done", `{"downloader":"alice","version":"1","item":"post:1\u0000post:2","bytes":{"data":2048}}`)
	f.do(t, "POST", "/test/request", `{"downloader":"bob"}`)

	status, doc := f.page(t, "/test/")
	if status != 200 {
		t.Fatalf("leaderboard: %d", status)
	}
	if got := doc.Find(`[data-testid="done-count"]`).Text(); got != "2" {
		t.Errorf("done count %q", got)
	}
	if rows := doc.Find(`[data-testid="leader"]`); rows.Length() != 1 || rows.Find("td.nick").Text() != "alice" {
		t.Errorf("leaders %q", rows.Text())
	}
	// The lookup box.
	_, doc = f.page(t, "/test/?item=post:3")
	if got := doc.Find(`[data-testid="lookup-status"]`).Text(); got != "claimed" {
		t.Errorf("lookup of a claimed item: %q", got)
	}
	_, doc = f.page(t, "/test/?item=nothing:here")
	if !strings.Contains(doc.Find(`[data-testid="lookup-result"]`).Text(), "never seen") {
		t.Error("lookup of an unknown item")
	}
	// Any period, order and page; nonsense falls back to the defaults.
	for _, q := range []string{"?period=24h&order=items", "?period=7d&page=9", "?period=bogus&page=-3&span=nope"} {
		if status, _ := f.page(t, "/test/"+q); status != 200 {
			t.Errorf("%s: %d", q, status)
		}
	}
	// A downloader's page, and a nick's over every project.
	status, doc = f.page(t, "/test/downloader/alice")
	if status != 200 || doc.Find(`[data-testid="items"]`).Text() != "2" {
		t.Errorf("downloader page: %d %q", status, doc.Find(`[data-testid="downloader-stats"]`).Text())
	}
	status, doc = f.page(t, "/test/downloader/bob") // claims, nothing done
	if status != 200 || doc.Find(`[data-testid="claims"]`).Text() != "1" {
		t.Errorf("bob's page: %d", status)
	}
	if status, _ := f.page(t, "/test/downloader/nobody"); status != 404 {
		t.Errorf("unknown downloader: %d", status)
	}
	if status, _ := f.page(t, "/downloader/bob/"); status != 404 {
		t.Errorf("nick page of bob, who has completed nothing: %d", status)
	}
	for _, path := range []string{"/nope/", "/test/nope", "/test/downloader/a/b"} {
		if status, _ := f.page(t, path); status != 404 {
			t.Errorf("%s: %d", path, status)
		}
	}
}
