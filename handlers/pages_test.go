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
