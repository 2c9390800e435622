package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"tracker/db/dbtest"
	"tracker/items"
	"tracker/stats"
)

// The leaderboard's charts: on the page by default over the whole
// project, with the top downloaders' lines; alone at GET /{project}/chart
// for the page's script to swap in, a fragment no search engine indexes;
// in charts.json with the lines. A span that is none is refused.
func TestChartFragment(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, "post:1", "post:2", "post:3")
	f.do(t, "POST", "/test/multi=2//request", `{"downloader":"alice","version":"1"}`)
	f.do(t, "POST", "/test/done", `{"downloader":"alice","version":"1","item":"post:1\u0000post:2","bytes":{"data":2048}}`)
	f.do(t, "POST", "/test/request", `{"downloader":"bob","version":"1"}`)
	f.do(t, "POST", "/test/done", `{"downloader":"bob","version":"1","item":"post:3","bytes":{"data":100}}`)
	if _, err := stats.NewStore(f.pool).Fold(ctx); err != nil {
		t.Fatal(err)
	}

	status, doc := f.page(t, "/test/")
	if status != 200 || doc.Find(`[data-charts-url="/test/chart?span=all"] .charts[data-at]`).Length() != 1 {
		t.Fatalf("leaderboard: %d, no charts to read again", status)
	}
	if got := doc.Find(`nav[aria-label="Chart span"] [aria-current=page]`).Text(); got != "all time" {
		t.Errorf("default span %q", got)
	}

	a := f.do(t, "GET", "/test/chart", "")
	if a.status != 200 || !strings.HasPrefix(a.header.Get("Content-Type"), "text/html") || a.header.Get("X-Robots-Tag") != "noindex" {
		t.Fatalf("chart: %d %v", a.status, a.header)
	}
	// Read again as a browser does, unzipped (what the fixture's client
	// does not).
	resp, err := http.Get(f.srv.URL + "/test/chart")
	if err != nil {
		t.Fatal(err)
	}
	frag, err := goquery.NewDocumentFromReader(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got := frag.Find(`[data-testid="chart-items-summary"]`).Text(); !strings.HasPrefix(got, "3 items done from") {
		t.Errorf("items summary %q", got)
	}
	if frag.Find(`#chart-items .y-axis .tick`).Length() < 2 || frag.Find(`#chart-items .x-axis span`).Length() == 0 {
		t.Error("the items chart has no axes")
	}
	lines := frag.Find(`path.line`)
	if lines.Length() != 2 || lines.Eq(0).AttrOr("data-line", "") != "alice" || lines.Eq(1).AttrOr("data-line", "") != "bob" {
		t.Errorf("lines: %d", lines.Length())
	}
	// Unchanged: 304. (Read again meanwhile, it must differ.)
	etag := a.header.Get("ETag")
	if resp := getJSON(t, f.srv.URL+"/test/chart", map[string]string{"If-None-Match": etag}, nil); etag == "" ||
		(resp.StatusCode != 304 && resp.Header.Get("ETag") == etag) {
		t.Errorf("chart with its ETag %q: %d", etag, resp.StatusCode)
	}
	if a := f.do(t, "GET", "/test/chart?span=year", ""); a.status != 400 || a.reason != "invalid-span" {
		t.Errorf("bad span: %d %s", a.status, a.reason)
	}
	if a := f.do(t, "GET", "/nope/chart", ""); a.status != 404 {
		t.Errorf("unknown project: %d", a.status)
	}

	var c stats.Chart
	if resp := getJSON(t, f.srv.URL+"/test/charts.json?span=all", nil, &c); resp.StatusCode != 200 || c.Lines == nil ||
		len(c.Lines.Downloaders) != 2 || c.Lines.Downloaders[0].Nick != "alice" {
		t.Fatalf("charts.json: %d %+v", resp.StatusCode, c.Lines)
	}
	if b := c.Lines.Downloaders[0].Bytes; b[len(b)-1] != 2048 {
		t.Errorf("alice's line %v", b)
	}
	var d stats.Chart
	if resp := getJSON(t, f.srv.URL+"/test/charts.json?downloader=alice", nil, &d); resp.StatusCode != 200 || d.Lines != nil {
		t.Errorf("a downloader's charts.json: %d %+v", resp.StatusCode, d.Lines)
	}
}

// The home page adds up the public projects, never a hidden one's work,
// and shows a recurring project's items where they stand instead of a
// progress bar.
func TestHomeTotals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, "post:1", "post:2")
	f.do(t, "POST", "/test/multi=2//request", `{"downloader":"alice"}`)
	f.do(t, "POST", "/test/done", `{"downloader":"alice","item":"post:1\u0000post:2","bytes":{"data":1024}}`)
	secret := dbtest.Project(t, f.pool, "secret", "", "hidden=true")
	again := dbtest.Project(t, f.pool, "again", "Again", "mode=recurring", "revisit_after=3600")
	engine := items.NewEngine(f.pool, nil)
	for _, p := range []string{"secret", "again"} {
		project := secret
		if p == "again" {
			project = again
		}
		if _, err := engine.Add(ctx, project, "todo", strings.NewReader("x:1\nx:2")); err != nil {
			t.Fatal(err)
		}
		f.do(t, "POST", "/"+p+"/request", `{"downloader":"bob"}`)
		if a := f.do(t, "POST", "/"+p+"/done", `{"downloader":"bob","item":"x:1","bytes":{"data":5}}`); a.status != 200 {
			t.Fatalf("%s done: %d %s", p, a.status, a.body)
		}
	}

	status, doc := f.page(t, "/")
	if status != 200 {
		t.Fatalf("home: %d", status)
	}
	for id, want := range map[string]string{"home-total-done": "3", "home-total-bytes": "1.0 KiB", "home-total-projects": "2"} {
		if got := doc.Find(`[data-testid="` + id + `"]`).Text(); got != want {
			t.Errorf("%s: %q, want %q", id, got, want)
		}
	}
	cards := doc.Find(`[data-testid="project"]`)
	var recurring *goquery.Selection
	cards.Each(func(_ int, s *goquery.Selection) {
		if strings.Contains(s.Find("h2").Text(), "Again") {
			recurring = s
		}
	})
	if recurring == nil || recurring.Find("[role=progressbar]").Length() != 0 {
		t.Fatal("the recurring project is missing or has a progress bar")
	}
	if got := recurring.Find(`[data-testid="recurring"]`).AttrOr("aria-label", ""); got != "1 scheduled for a later visit, 1 due, 0 out with warriors, 0 retired" {
		t.Errorf("recurring project: %q", got)
	}
}

// A reader who hides a line gets the charts with its line drawn off and
// the y axis scaled to the lines left: hiding the leader shows the others'
// climb. A hide naming too many lines or too long a nick is refused.
func TestChartHidesLines(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, "post:1", "post:2", "post:3")
	f.do(t, "POST", "/test/multi=2//request", `{"downloader":"alice","version":"1"}`)
	f.do(t, "POST", "/test/done", `{"downloader":"alice","version":"1","item":"post:1\u0000post:2","bytes":{"data":2000000}}`)
	f.do(t, "POST", "/test/request", `{"downloader":"bob","version":"1"}`)
	f.do(t, "POST", "/test/done", `{"downloader":"bob","version":"1","item":"post:3","bytes":{"data":100}}`)
	if _, err := stats.NewStore(f.pool).Fold(ctx); err != nil {
		t.Fatal(err)
	}
	chart := func(query string) *goquery.Document {
		t.Helper()
		resp, err := http.Get(f.srv.URL + "/test/chart" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("chart%s: %d", query, resp.StatusCode)
		}
		doc, err := goquery.NewDocumentFromReader(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	top := func(doc *goquery.Document) string {
		return strings.TrimSpace(doc.Find(`#chart-lines .y-axis .tick`).Last().Text())
	}
	all, hiding := chart(""), chart("?hide=alice")
	if got := top(all); !strings.Contains(got, "MiB") {
		t.Errorf("the lines' top with every line: %q", got)
	}
	if got := top(hiding); got == "" || strings.Contains(got, "iB") {
		t.Errorf("the lines' top with alice's hidden: %q, want bob's 100 B's scale", got)
	}
	if !hiding.Find(`path.line[data-line="alice"]`).HasClass("off") || hiding.Find(`path.line[data-line="bob"]`).HasClass("off") {
		t.Error("alice's line is not drawn off, or bob's is")
	}
	// Every line hidden: the axis stays that of them all.
	if got := top(chart("?hide=alice&hide=bob")); got != top(all) {
		t.Errorf("every line hidden: top %q, with them all %q", got, top(all))
	}
	if a := f.do(t, "GET", "/test/chart?"+strings.Repeat("hide=x&", stats.ChartLines+1), ""); a.status != 400 || a.reason != "invalid-hide" {
		t.Errorf("too many lines hidden: %d %s", a.status, a.reason)
	}
	if a := f.do(t, "GET", "/test/chart?hide="+strings.Repeat("n", 65), ""); a.status != 400 || a.reason != "invalid-hide" {
		t.Errorf("a nick too long: %d %s", a.status, a.reason)
	}
}
