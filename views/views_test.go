package views

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"tracker/stats"
)

func doc(t *testing.T, c templ.Component) *goquery.Document {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	d, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func testid(d *goquery.Document, id string) *goquery.Selection {
	return d.Find(`[data-testid="` + id + `"]`)
}

var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func leaderboardView() LeaderboardView {
	longNick := strings.Repeat("verylongnick", 17)
	leaders := []stats.Leader{
		{Rank: 1, Nick: longNick, Items: 1200, Bytes: 5 << 30, Share: .75, LastSeen: now.Add(-time.Minute), Version: "20261101.01"},
		{Rank: 2, Nick: "<script>alert(1)</script>", Items: 10, Bytes: 1 << 20, Share: .25, LastSeen: now.Add(-time.Hour), Version: "1", Outdated: true},
	}
	return LeaderboardView{
		Project: ProjectInfo{Slug: "demo", Title: "Demo", MinVersion: "2"},
		Board: stats.Board{
			Project: "demo", At: now,
			Totals: stats.Totals{Done: 1210, Bytes: 5<<30 + 1<<20, Todo: 790, Total: 2000,
				Queues: map[string]int64{"todo": 700, "backfeed": 90, "downloader:alice": 0}},
			Feed:    []stats.FeedEntry{{At: now, Downloader: "<b>x</b>", Items: 3, Bytes: 10, Item: "<img src=x onerror=alert(1)>"}},
			Leaders: leaders,
		},
		Ranking:  stats.Ranking{Period: stats.AllTime, Order: stats.ByBytes, Total: 250, Offset: 100, Leaders: leaders},
		PageSize: 100,
		Chart:    stats.Chart{Span: stats.SpanDay, Bucket: 300},
		Now:      now,
	}
}

func TestLeaderboard(t *testing.T) {
	v := leaderboardView()
	d := doc(t, Leaderboard(v))
	if got := testid(d, "done-count").Text(); got != "1,210" {
		t.Errorf("done count %q", got)
	}
	rows := testid(d, "leader")
	if rows.Length() != 2 {
		t.Fatalf("%d leader rows", rows.Length())
	}
	// Long nicks whole; markup in nicks and items is text, never tags.
	if got := rows.Eq(0).Find("td.nick").Text(); got != v.Ranking.Leaders[0].Nick {
		t.Errorf("long nick cut: %q", got)
	}
	if got := rows.Eq(1).Find("td.nick").Text(); got != "<script>alert(1)</script>" {
		t.Errorf("nick rendered as %q", got)
	}
	if d.Find("script").FilterFunction(func(_ int, s *goquery.Selection) bool { return s.AttrOr("src", "") == "" }).Length() != 0 {
		t.Error("an inline script made it into the page")
	}
	if d.Find("[data-testid=feed] img").Length() != 0 || !strings.Contains(testid(d, "feed").Text(), "<img src=x onerror=alert(1)>") {
		t.Error("an item name in the feed became markup")
	}
	if rows.Eq(1).Find("[data-testid=outdated]").Length() != 1 || rows.Eq(0).Find("[data-testid=outdated]").Length() != 0 {
		t.Error("outdated flags wrong")
	}
	if href, _ := rows.Eq(1).Find("td.nick a").Attr("href"); href != "/demo/downloader/%3Cscript%3Ealert%281%29%3C%2Fscript%3E" {
		t.Errorf("downloader link %q", href)
	}
	// Live hooks, paging and switches.
	fresh := testid(d, "freshness")
	if fresh.AttrOr("role", "") != "status" || d.Find("[data-live-url='/demo/events']").Length() != 1 {
		t.Error("live hooks missing")
	}
	if d.Find(`[data-live="totals.queues.backfeed"]`).Text() != "90" {
		t.Error("queue sizes missing")
	}
	for _, href := range []string{"/demo/?period=24h", "/demo/?order=items", "/demo/#leaderboard", "/demo/?page=3#leaderboard", "/demo/?all=1&page=2#leaderboard", "/demo/?page=2&span=week#chart"} {
		want := href
		if strings.Contains(href, "all=1") {
			want = "/demo/?all=1#leaderboard"
		}
		if d.Find(`a[href="`+want+`"]`).Length() == 0 {
			t.Errorf("no link to %s", want)
		}
	}
	if testid(d, "lookup-result").Length() != 0 {
		t.Error("a lookup result without a lookup")
	}
	// The live stream updates the head only on its own board.
	if d.Find("[data-live-leaders]").Length() != 0 {
		t.Error("page 2 marked for live leaders")
	}
}

func TestLeaderboardLookup(t *testing.T) {
	for _, c := range []struct {
		name   string
		lookup Lookup
		want   string
	}{
		{"unknown", Lookup{Query: "user:x"}, "never seen"},
		{"archived", Lookup{Query: "user:y", Found: true, Status: "archived", Archive: "demo/demo-2026-11-01.jsonl.gz"}, "demo/demo-2026-11-01.jsonl.gz"},
		{"claimed", Lookup{Query: "user:z", Found: true, Status: "claimed", Downloader: "alice", ClaimCount: 2}, "alice"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := leaderboardView()
			v.Lookup = &c.lookup
			d := doc(t, Leaderboard(v))
			res := testid(d, "lookup-result")
			if !strings.Contains(res.Text(), c.want) {
				t.Errorf("lookup result %q lacks %q", res.Text(), c.want)
			}
			if val, _ := testid(d, "lookup-input").Attr("value"); val != c.lookup.Query {
				t.Errorf("search box holds %q", val)
			}
		})
	}
}

func TestHome(t *testing.T) {
	past, future := now.Add(-time.Hour), now.Add(50*time.Hour)
	d := doc(t, Page(Site{BannerHTML: "<strong>Hello</strong>"}, "Projects", Home(HomeView{Now: now, Projects: []HomeProject{
		{Slug: "a", Title: "A", Done: 25, Total: 100, Deadline: &future},
		{Slug: "b", Done: 0, Total: 0, Deadline: &past, Paused: true},
	}})))
	cards := testid(d, "project")
	if cards.Length() != 2 {
		t.Fatalf("%d projects", cards.Length())
	}
	if got := cards.Eq(0).Find("[role=progressbar]").AttrOr("aria-valuenow", ""); got != "25.0" {
		t.Errorf("progress %q", got)
	}
	if got := testid(d, "countdown").Eq(0).Text(); got != "closes in 2 d 2 h" {
		t.Errorf("countdown %q", got)
	}
	if got := testid(d, "countdown").Eq(1).Text(); got != "closed" {
		t.Errorf("past deadline %q", got)
	}
	if testid(d, "banner").Find("strong").Text() != "Hello" {
		t.Error("banner not rendered")
	}
	if empty := doc(t, Home(HomeView{})); testid(empty, "no-projects").Length() != 1 {
		t.Error("no empty state")
	}
}

func TestChartSVG(t *testing.T) {
	empty := doc(t, ChartSVG(stats.Chart{Span: stats.SpanDay, Bucket: 300, Points: []stats.Point{{At: now}}}, ChartItems))
	if empty.Find("svg").Length() != 0 || !strings.Contains(empty.Text(), "No completions") {
		t.Error("an empty chart drew bars")
	}
	d := doc(t, ChartSVG(stats.Chart{Span: stats.SpanDay, Bucket: 300, Points: []stats.Point{
		{At: now, Items: 4}, {At: now.Add(5 * time.Minute), Items: 8}, {At: now.Add(10 * time.Minute)},
	}}, ChartItems))
	rects := d.Find("svg rect")
	if rects.Length() != 3 || rects.Eq(1).AttrOr("height", "") != "150.0" || rects.Eq(0).AttrOr("height", "") != "75.0" {
		t.Errorf("bars %d: %v", rects.Length(), rects.Eq(0).AttrOr("height", ""))
	}
	if label := d.Find("svg").AttrOr("aria-label", ""); !strings.Contains(label, "12 in all") {
		t.Errorf("chart label %q", label)
	}
	b := doc(t, ChartSVG(stats.Chart{Span: stats.SpanWeek, Bucket: 3600, Points: []stats.Point{{At: now, Items: 1, Bytes: 3 << 20}}}, ChartBytes))
	if label := b.Find("svg").AttrOr("aria-label", ""); !strings.HasPrefix(label, "Bytes downloaded per 1 h") || !strings.Contains(label, "3.0 MiB in all") {
		t.Errorf("bytes chart label %q", label)
	}
}

func TestDownloaderAndNick(t *testing.T) {
	last := now.Add(-2 * time.Minute)
	d := doc(t, Downloader(DownloaderView{Project: ProjectInfo{Slug: "demo", MinVersion: "3"}, Now: now,
		Stats: stats.DownloaderStats{Nick: "alice", Rank: 4, Items: 99, Claims: 2, Version: "2", Outdated: true, LastSeen: &last}}))
	s := testid(d, "downloader-stats")
	if strings.TrimSpace(s.Find("[data-testid=rank]").Text()) != "#4" || s.Find("[data-testid=claims]").Text() != "2" || s.Find("[data-testid=outdated]").Length() != 1 {
		t.Errorf("downloader stats %q", s.Text())
	}
	n := doc(t, Nick(NickView{Totals: stats.NickTotals{Nick: "alice", Items: 5, Projects: []stats.DownloaderStats{{Project: "demo", Items: 5}}}}))
	if !strings.Contains(testid(n, "nick-totals").Text(), "5 items") || n.Find(`a[href="/demo/downloader/alice"]`).Length() != 1 {
		t.Errorf("nick page %q", testid(n, "nick-totals").Text())
	}
}

func TestFormats(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{FormatInt(1234567), "1,234,567"}, {FormatInt(-1000), "-1,000"}, {FormatInt(12), "12"},
		{FormatDuration(0), "0 s"}, {FormatDuration(90 * time.Second), "1 min 30 s"},
		{FormatDuration(50 * time.Hour), "2 d 2 h"}, {FormatDuration(48 * time.Hour), "2 d"},
		{FormatBytes(1536), "1.5 KiB"}, {Percent(1, 3), "33.3 %"}, {Percent(1, 0), "0.0 %"},
		{FormatElapsed(340 * time.Millisecond), "340 ms"}, {FormatElapsed(1234 * time.Millisecond), "1.2 s"},
		{FormatElapsed(42 * time.Second), "42 s"}, {FormatElapsed(3 * time.Minute), "3 min"}, {FormatElapsed(-time.Second), "0 ms"},
		{Rel(now.Add(-4*time.Minute-10*time.Second), now), "4 min ago"}, {Rel(now.Add(25*time.Second), now), "in 25 s"},
		{Rel(now.Add(-300*time.Millisecond), now), "just now"}, {Rel(now.Add(-47*time.Hour), now), "47 h ago"},
		{Rel(now.Add(-50*time.Hour), now), "2 d ago"}, {relText(now.Add(-time.Second), now, "due"), "due"},
		{Exact(time.Date(2026, 1, 2, 16, 4, 5, 0, time.FixedZone("CET", 3600))), "2026-01-02 15:04:05 UTC"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// A time in the admin panel says how far it is from now, and its exact
// time to the second in its title; it takes the keyboard's focus.
func TestRelTime(t *testing.T) {
	at := time.Now().Add(-4*time.Minute - 30*time.Second)
	d := doc(t, relTime(at, "when", ""))
	el := testid(d, "when")
	if el.Text() != "4 min ago" || el.AttrOr("title", "") != Exact(at) || el.AttrOr("datetime", "") != ISO(at) ||
		el.AttrOr("tabindex", "") != "0" || !el.HasClass("rel") {
		html, _ := goquery.OuterHtml(el)
		t.Fatalf("relTime: %s", html)
	}
}
