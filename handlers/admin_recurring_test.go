package handlers_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"tracker/db/dbtest"
	"tracker/items"
)

// A recurring project never finishes: its admin overview shows where its
// items stand (scheduled, due, out, retired) and its visits rather than a
// done count, and its settings show the visits' keys, not recrawl_after,
// which means nothing there; a project done once shows the reverse.
func TestAdminRecurringProject(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.admin(t)
	again := dbtest.Project(t, f.pool, "again", "Again", "mode=recurring", "revisit_after=3600")
	if _, err := items.NewEngine(f.pool, nil).Add(t.Context(), again, "todo", strings.NewReader("x:1\nx:2\nx:3")); err != nil {
		t.Fatal(err)
	}
	f.do(t, "POST", "/again/request", `{"downloader":"bob"}`)
	if a := f.do(t, "POST", "/again/done", `{"downloader":"bob","item":"x:1","bytes":{"data":5}}`); a.status != 200 {
		t.Fatalf("done: %d %s", a.status, a.body)
	}
	f.do(t, "POST", "/again/request", `{"downloader":"bob"}`)

	page := func(path string) *goquery.Document {
		t.Helper()
		a := c.get(t, path)
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(a.body))
		if err != nil || a.status != 200 {
			t.Fatalf("%s: %d %v", path, a.status, err)
		}
		return doc
	}
	doc := page("/admin/projects/again/")
	if got := doc.Find(`[data-testid="recurring"]`).AttrOr("aria-label", ""); got != "1 scheduled for a later visit, 1 due, 1 out with warriors, 0 retired" {
		t.Errorf("recurring overview: %q", got)
	}
	if got := strings.TrimSpace(doc.Find(`tr[data-key=".done"] th`).Text()); got != "Visits made" {
		t.Errorf("recurring overview's done row: %q", got)
	}
	if doc.Find(`[data-testid="coverage"]`).Length() != 1 {
		t.Error("recurring overview: no coverage")
	}
	doc = page("/admin/projects/test/")
	if doc.Find(`[data-testid="recurring"]`).Length() != 0 || strings.TrimSpace(doc.Find(`tr[data-key=".done"] th`).Text()) != "Done" {
		t.Error("a project done once shows the recurring state")
	}

	fields := func(slug string) map[string]bool {
		t.Helper()
		names := map[string]bool{}
		page("/admin/projects/" + slug + "/queues").Find(`[name]`).Each(func(_ int, s *goquery.Selection) {
			names[s.AttrOr("name", "")] = true
		})
		return names
	}
	recurring, once := fields("again"), fields("test")
	for _, key := range []string{"revisit_after", "score_none", "score_some", "score_full", "retire_below"} {
		if !recurring[key] || once[key] {
			t.Errorf("%s: shown in the recurring project %v, in the one done once %v", key, recurring[key], once[key])
		}
	}
	if recurring["recrawl_after"] || !once["recrawl_after"] {
		t.Errorf("recrawl_after: shown in the recurring project %v, in the one done once %v", recurring["recrawl_after"], once["recrawl_after"])
	}
	if !recurring["mode"] || !once["mode"] {
		t.Error("mode is not shown in both")
	}
}
