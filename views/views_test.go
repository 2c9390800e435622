package views

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"tracker/naming"
	"tracker/stats"
	"tracker/volunteers"
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
	longNick := strings.Repeat("verylongnick", 6)[:naming.MaxNickRunes] // the longest a warrior sends
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
		Chart:    stats.Chart{Span: stats.SpanAll, Bucket: 300},
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
	for _, href := range []string{"/demo/?period=24h", "/demo/?order=items", "/demo/#leaderboard", "/demo/?page=3#leaderboard", "/demo/?page=2&span=week#chart"} {
		if d.Find(`a[href="`+href+`"]`).Length() == 0 {
			t.Errorf("no link to %s", href)
		}
	}
	// The board is read a page at a time: no page of every downloader.
	if d.Find(`a[href*="all=1"]`).Length() != 0 || testid(d, "page-first").AttrOr("href", "") != "/demo/#leaderboard" ||
		testid(d, "page-last").AttrOr("href", "") != "/demo/?page=3#leaderboard" || testid(d, "page-input").AttrOr("value", "") != "2" {
		t.Errorf("pager: %q", testid(d, "pager").Text())
	}
	if testid(d, "lookup-result").Length() != 0 {
		t.Error("a lookup result without a lookup")
	}
	// The live stream updates the head only on its own board.
	if d.Find("[data-live-leaders]").Length() != 0 {
		t.Error("page 2 marked for live leaders")
	}
}

// "Just done" shows FeedShown entries and the rest behind "Show more";
// the leaderboard's rows carry their nick for the chart's lines, whole in
// the link's title, and mark the columns a phone leaves out.
func TestLeaderboardFeedAndRows(t *testing.T) {
	v := leaderboardView()
	v.Board.Feed = nil
	for i := range 50 {
		v.Board.Feed = append(v.Board.Feed, stats.FeedEntry{At: now, Downloader: "alice", Items: 1, Bytes: 10, Item: "item:" + strconv.Itoa(i)})
	}
	d := doc(t, Leaderboard(v))
	if n := testid(d, "feed").Find("li").Length(); n != FeedShown || FeedShown != 15 {
		t.Errorf("%d entries shown", n)
	}
	more := testid(d, "feed-more")
	if _, hidden := more.Attr("hidden"); hidden || more.Find("li").Length() != 35 || testid(d, "feed-more-toggle").Text() != "Show 35 more" {
		t.Errorf("show more: %q, %d entries", testid(d, "feed-more-toggle").Text(), more.Find("li").Length())
	}
	v.Board.Feed = v.Board.Feed[:3]
	d = doc(t, Leaderboard(v))
	if _, hidden := testid(d, "feed-more").Attr("hidden"); !hidden || testid(d, "feed").Find("li").Length() != 3 {
		t.Error("show more offered with nothing more")
	}
	row := testid(d, "leader").Eq(0)
	nick := v.Ranking.Leaders[0].Nick
	if row.AttrOr("data-nick", "") != nick || row.Find("td.nick a").AttrOr("title", "") != nick {
		t.Errorf("row's nick %q", row.AttrOr("data-nick", ""))
	}
	if row.Find("td.wide").Length() != 3 || d.Find("table.leaders th.wide").Length() != 3 {
		t.Error("the columns a phone leaves out are not marked")
	}
	if got := row.Find("td").Eq(4).Text(); got != "75.0\u00a0%" {
		t.Errorf("share %q", got)
	}
	if d.Find(`[data-charts-url="/demo/chart?span=all"]`).Length() != 1 {
		t.Error("no address to read the charts again")
	}
	// A recurring project never finishes: its visits, no progress bar.
	if d.Find("[data-testid=totals] [role=progressbar]").Length() != 1 {
		t.Error("no progress bar")
	}
	v.Board.Coverage = &stats.Coverage{Tracked: 10}
	d = doc(t, Leaderboard(v))
	if d.Find("[data-testid=totals] [role=progressbar]").Length() != 0 || !strings.Contains(testid(d, "totals").Find(".big").Text(), "1,210 visits made") {
		t.Errorf("a recurring project's totals: %q", testid(d, "totals").Find(".big").Text())
	}
}

// A nick, a version or an item name stored longer than any a warrior may
// send now shows its first characters and an ellipsis, the nick with no
// link: whatever is stored, a row of the board and an entry of the feed
// are bounded in bytes. Those a warrior may send show whole.
func TestLeaderboardCutsWhatIsStoredTooLong(t *testing.T) {
	v := leaderboardView()
	huge := strings.Repeat("𝒜", 1000) // 4 bytes each
	v.Ranking.Leaders = []stats.Leader{
		{Rank: 1, Nick: huge, Version: huge, Items: 1, Bytes: 1},
		{Rank: 2, Nick: strings.Repeat("𝒜", naming.MaxNickRunes), Version: strings.Repeat("v", naming.MaxVersionBytes), Items: 1, Bytes: 1},
	}
	v.Board.Feed = []stats.FeedEntry{{At: now, Downloader: huge, Items: 1, Bytes: 1, Item: "url:https://example.com/" + huge}}
	var buf bytes.Buffer
	if err := Leaderboard(v).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	// The cut nick twice (data-nick, text) and its version; the whole one
	// three times (and escaped in its link); the feed's nick and name.
	shown := 2*naming.MaxNickRunes + naming.MaxVersionBytes + 3*naming.MaxNickRunes + naming.MaxNickRunes + FeedNameRunes
	if n := strings.Count(buf.String(), "𝒜"); n > shown {
		t.Errorf("%d characters of the stored nicks, versions and names on the page", n)
	}
	d, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	rows := testid(d, "leader")
	cut := strings.Repeat("𝒜", naming.MaxNickRunes) + "…"
	if got := rows.Eq(0).Find("td.nick").Text(); strings.TrimSpace(got) != cut || rows.Eq(0).Find("td.nick a").Length() != 0 {
		t.Errorf("an over-long nick: %q", got)
	}
	if got := strings.TrimSpace(rows.Eq(0).Find("td").Eq(6).Text()); got != strings.Repeat("𝒜", naming.MaxVersionBytes)+"…" {
		t.Errorf("an over-long version: %q", got)
	}
	whole := v.Ranking.Leaders[1]
	if rows.Eq(1).Find("td.nick a").Text() != whole.Nick || strings.TrimSpace(rows.Eq(1).Find("td").Eq(6).Text()) != whole.Version {
		t.Errorf("the longest nick and version a warrior sends are cut")
	}
	if got := []rune(testid(d, "feed").Find("code").Text()); len(got) != FeedNameRunes+1 || testid(d, "feed").Find("a").Length() != 0 {
		t.Errorf("an over-long item name in the feed: %d characters", len(got))
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

// A chart reads on its own: a title, a summary with the span and the
// bucket, a y axis with units from 0 to a round top, times along the
// bottom, and nothing drawn when nothing was done.
// The home page adds up the tracker (one volunteer is one), says what a
// volunteer is, keeps a percentage whole, and shows a recurring project's
// items where they stand, not a progress bar it never finishes.
func TestHomeTotalsAndRecurring(t *testing.T) {
	d := doc(t, Home(HomeView{Now: now, Done: 1234, Bytes: 3 << 30, Volunteers: volunteers.Counts{Last30: 1, Month: 1},
		Projects: []HomeProject{
			{Slug: "once", Done: 278, Total: 1000},
			{Slug: "again", Done: 5000, Total: 5010, Recurring: &RecurringState{Scheduled: 700, Due: 250, Out: 30, Retired: 20,
				VisitsPerHour: 40, NeededPerHour: 50}},
		}}))
	totals := testid(d, "home-totals")
	if testid(d, "home-total-done").Text() != "1,234" || testid(d, "home-total-bytes").Text() != "3.0 GiB" ||
		testid(d, "home-total-projects").Text() != "2" || testid(d, "home-total-volunteers").Text() != "1" {
		t.Errorf("totals %q", totals.Text())
	}
	vol := strings.Join(strings.Fields(testid(d, "home-volunteers").Text()), " ")
	if !strings.HasPrefix(vol, "1 volunteer in the last 30 days, 1 new this month.") || !strings.Contains(vol, "network address") ||
		!strings.Contains(vol, "not the warriors running now") {
		t.Errorf("volunteers %q", vol)
	}
	cards := testid(d, "project")
	if got := cards.Eq(0).Find("[data-testid=home-done] .nowrap").Text(); got != "(27.8\u00a0%)" {
		t.Errorf("percentage %q", got)
	}
	again := cards.Eq(1)
	if again.Find("[role=progressbar]").Length() != 0 {
		t.Error("a recurring project has a progress bar")
	}
	if got := again.Find("[data-testid=recurring]").AttrOr("aria-label", ""); got != "700 scheduled for a later visit, 250 due, 30 out with warriors, 20 retired" {
		t.Errorf("recurring %q", got)
	}
	if got := again.Find(".k-scheduled").First().AttrOr("style", ""); got != "width:70.00%;" {
		t.Errorf("scheduled width %q", got)
	}
	if got := strings.Join(strings.Fields(again.Find("[data-testid=coverage]").Text()), " "); got != "Not covered 40 visits in the last hour, 50 an hour wanted." {
		t.Errorf("coverage %q", got)
	}
	if d := doc(t, Home(HomeView{Volunteers: volunteers.Counts{Last30: 2}})); !strings.Contains(testid(d, "home-volunteers").Text(), "2 volunteers in") {
		t.Error("two volunteers not plural")
	}
}

func TestChartSVG(t *testing.T) {
	empty := doc(t, ChartSVG(stats.Chart{Span: stats.SpanDay, Bucket: 300, At: now, Points: []stats.Point{{At: now}}}, ChartItems))
	if empty.Find("svg").Length() != 0 || !strings.Contains(empty.Text(), "No completions") || empty.Find("h3").Text() != "Items done per hour" {
		t.Error("an empty chart drew something")
	}
	// 4 and 8 items in two 5-minute buckets, then 2 in the minute the
	// last bucket has run: 48 and 96 an hour, then over the 5 minutes to
	// now the 2 and four fifths of the 8, 100.8 an hour.
	c := stats.Chart{Span: stats.SpanAll, Bucket: 300, At: now.Add(11 * time.Minute), Points: []stats.Point{
		{At: now, Items: 4, Bytes: 3 << 20}, {At: now.Add(5 * time.Minute), Items: 8}, {At: now.Add(10 * time.Minute), Items: 2},
	}}
	d := doc(t, ChartSVG(c, ChartItems))
	fig := testid(d, "chart-items")
	if got := fig.Find("h3").Text(); got != "Items done per hour" {
		t.Errorf("title %q", got)
	}
	summary := testid(d, "chart-items-summary").Text()
	if summary != "14 items done from 2026-11-22 12:00 UTC to 2026-11-22 12:11 UTC, at most 101 an hour (5 min buckets)." ||
		fig.Find("svg").AttrOr("aria-label", "") != summary {
		t.Errorf("summary %q", summary)
	}
	var ys []string
	fig.Find(".y-axis .tick").Each(func(_ int, s *goquery.Selection) { ys = append(ys, s.Text()) })
	if strings.Join(ys, " ") != "0/h 50/h 100/h 150/h" {
		t.Errorf("y axis %q", ys)
	}
	var xs []string
	fig.Find(".x-axis span").Each(func(_ int, s *goquery.Selection) { xs = append(xs, s.Text()) })
	if strings.Join(xs, " ") != "12:00 12:05 12:10" {
		t.Errorf("x axis %q", xs)
	}
	// Steps: 48/h over the first 5 minutes of 11 (0 to 454.5), 96/h, then
	// 100.8/h to the right edge; 150/h at the top of 300 units.
	if got := fig.Find("path.rate").AttrOr("d", ""); got != "M0,300.0H0.0V204.0H454.5V108.0H909.1V98.4H1000.0V300.0Z" {
		t.Errorf("path %q", got)
	}
	// A bucket just begun, nothing in it yet: the chart does not drop at
	// its end. 60 items in the bucket before, 5 s into the next: 720/h,
	// then 708/h (59 of the 60 over the last 5 minutes), under a top of 800/h.
	begun := stats.Chart{Span: stats.SpanAll, Bucket: 300, At: now.Add(5*time.Minute + 5*time.Second), Points: []stats.Point{
		{At: now, Items: 60}, {At: now.Add(5 * time.Minute)},
	}}
	if got := testid(doc(t, ChartSVG(begun, ChartItems)), "chart-items").Find("path.rate").AttrOr("d", ""); got != "M0,300.0H0.0V30.0H983.6V34.5H1000.0V300.0Z" {
		t.Errorf("a bucket just begun: path %q", got)
	}
	b := doc(t, ChartSVG(c, ChartBytes))
	if got := testid(b, "chart-bytes-summary").Text(); !strings.HasPrefix(got, "3.0 MiB downloaded from") || !strings.Contains(got, "at most 10.2 KiB/s") {
		t.Errorf("bytes summary %q", got)
	}
	ys = nil
	b.Find(".y-axis .tick").Each(func(_ int, s *goquery.Selection) { ys = append(ys, s.Text()) })
	if strings.Join(ys, " ") != "0 B/s 5 KiB/s 10 KiB/s 15 KiB/s" {
		t.Errorf("bytes y axis %q", ys)
	}
}

// The top downloaders' lines: one per downloader, coloured by rank, each
// in the legend with its bytes; a chart without them has no such figure.
func TestBoardChartsLines(t *testing.T) {
	c := stats.Chart{Span: stats.SpanDay, Bucket: 300, At: now.Add(2 * time.Hour), Points: []stats.Point{{At: now, Items: 1, Bytes: 10}}}
	if d := doc(t, BoardCharts(c)); testid(d, "chart-lines").Length() != 0 || testid(d, "chart-items").Length() != 1 {
		t.Error("lines drawn without any")
	}
	c.Lines = &stats.Lines{Start: now, Bucket: 3600, Downloaders: []stats.Line{
		{Nick: "alice", Bytes: []int64{0, 1 << 30, 3 << 30}},
		{Nick: "<b>bob</b>", Bytes: []int64{0, 0, 1 << 30}},
	}}
	d := doc(t, BoardCharts(c))
	if got := testid(d, "charts").AttrOr("data-at", ""); got != "2026-11-22T14:00:00Z" {
		t.Errorf("data-at %q", got)
	}
	lines := testid(d, "chart-lines").Find("path.line")
	if lines.Length() != 2 || lines.Eq(0).AttrOr("data-line", "") != "alice" || !lines.Eq(1).HasClass("l1") {
		t.Fatalf("%d lines", lines.Length())
	}
	// alice's first GiB came in the chart's first 5 minutes, the only
	// ones anything was done in (the chart says); her second in the
	// second hour, of which the chart knows nothing finer.
	if got := lines.Eq(0).AttrOr("d", ""); got != "M0.0,300.0L41.7,200.0L500.0,200.0L1000.0,0.0" {
		t.Errorf("alice's line %q", got)
	}
	legend := testid(d, "chart-legend").Find("li")
	if legend.Length() != 2 || legend.Eq(1).AttrOr("data-line-nick", "") != "<b>bob</b>" || !strings.Contains(legend.Eq(0).Text(), "3.0 GiB") {
		t.Errorf("legend %q", legend.Text())
	}
	var ys []string
	testid(d, "chart-lines").Find(".y-axis .tick").Each(func(_ int, s *goquery.Selection) { ys = append(ys, s.Text()) })
	if strings.Join(ys, " ") != "0 B 1 GiB 2 GiB 3 GiB" {
		t.Errorf("lines y axis %q", ys)
	}
}

func TestTimeTicks(t *testing.T) {
	for _, c := range []struct {
		span time.Duration
		want string
	}{
		{15 * time.Minute, "12:05 12:10 12:15"},
		{24 * time.Hour, "18:00 Nov 23 06:00 12:00"},
		{7 * 24 * time.Hour, "Nov 23 Nov 25 Nov 27 Nov 29"},
		{400 * 24 * time.Hour, "Jan 2027 Apr 2027 Jul 2027 Oct 2027"},
	} {
		var got []string
		for _, tk := range timeTicks(now.Add(time.Minute), now.Add(time.Minute+c.span)) {
			got = append(got, tk.Label)
			if tk.Pos < 0 || tk.Pos > 100 {
				t.Errorf("%v: tick %q at %v", c.span, tk.Label, tk.Pos)
			}
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%v: ticks %q, want %q", c.span, got, c.want)
		}
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
		{FormatBytes(1536), "1.5 KiB"}, {Percent(1, 3), "33.3\u00a0%"}, {Percent(1, 0), "0.0\u00a0%"},
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
