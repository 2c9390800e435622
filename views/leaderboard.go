package views

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"tracker/naming"
	"tracker/stats"
)

// boardParams are the leaderboard page's query parameters: period=all|24h|7d,
// order=bytes|items, page=N (from 1), span=day|week|month|all.
type boardParams struct {
	period, order, span string
	page                int
}

func paramsOf(v LeaderboardView) boardParams {
	return boardParams{period: string(v.Ranking.Period), order: string(v.Ranking.Order), span: string(v.Chart.Span), page: boardPage(v)}
}

// boardPage is the number of the board's page shown, from 1.
func boardPage(v LeaderboardView) int {
	if v.PageSize <= 0 {
		return 1
	}
	return v.Ranking.Offset/v.PageSize + 1
}

// url renders the parameters, leaving out the defaults.
func (p boardParams) url(slug string) string {
	q := url.Values{}
	if p.period != "" && p.period != string(stats.AllTime) {
		q.Set("period", p.period)
	}
	if p.order != "" && p.order != string(stats.ByBytes) {
		q.Set("order", p.order)
	}
	if p.span != "" && p.span != string(stats.SpanAll) {
		q.Set("span", p.span)
	}
	if p.page > 1 {
		q.Set("page", strconv.Itoa(p.page))
	}
	u := "/" + slug + "/"
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// pageFormFields are the parameters the pager's form carries beside the
// page it asks for: the board's period, order and the chart's span.
func pageFormFields(v LeaderboardView) []HiddenField {
	p := paramsOf(v)
	p.page = 1
	u, err := url.Parse(p.url(v.Project.Slug))
	if err != nil {
		return nil
	}
	var out []HiddenField
	for _, name := range []string{"period", "order", "span"} {
		if value := u.Query().Get(name); value != "" {
			out = append(out, HiddenField{Name: name, Value: value})
		}
	}
	return out
}

func periodURL(v LeaderboardView, period stats.Period) string {
	p := paramsOf(v)
	p.period, p.page = string(period), 1
	return p.url(v.Project.Slug)
}

func orderURL(v LeaderboardView, order stats.Order) string {
	p := paramsOf(v)
	p.order, p.page = string(order), 1
	return p.url(v.Project.Slug)
}

func spanURL(v LeaderboardView, span stats.Span) string {
	p := paramsOf(v)
	p.span = string(span)
	return p.url(v.Project.Slug) + "#chart"
}

// chartsURL is where static/live.js reads the page's charts again.
func chartsURL(v LeaderboardView) string {
	return "/" + v.Project.Slug + "/chart?span=" + url.QueryEscape(string(v.Chart.Span))
}

// FeedShown is how many of the latest completions "Just done" shows
// before "Show more".
const FeedShown = 15

func splitFeed(feed []stats.FeedEntry) (shown, more []stats.FeedEntry) {
	if len(feed) <= FeedShown {
		return feed, nil
	}
	return feed[:FeedShown], feed[FeedShown:]
}

func pageURL(v LeaderboardView, page int) string {
	p := paramsOf(v)
	p.page = page
	return p.url(v.Project.Slug) + "#leaderboard"
}

func pages(v LeaderboardView) int {
	if v.PageSize <= 0 {
		return 1
	}
	return max(1, (v.Ranking.Total+v.PageSize-1)/v.PageSize)
}

// queueNames lists the standard queues first, then the others as they sort.
func queueNames(queues map[string]int64) []string {
	names := slices.Clone(naming.StandardQueues)
	var others []string
	for q := range queues {
		// The error queue is shown as the failed items; a recurring
		// project's bands of due items as one row, its retired items as
		// another.
		if !slices.Contains(names, q) && q != naming.ErrorQueue && q != naming.RetiredQueue && !strings.HasPrefix(q, naming.RevisitQueuePrefix) {
			others = append(others, q)
		}
	}
	slices.Sort(others)
	return append(names, others...)
}

// dueForVisit counts a recurring project's due items: its score bands.
func dueForVisit(queues map[string]int64) int64 {
	var n int64
	for q, size := range queues {
		if strings.HasPrefix(q, naming.RevisitQueuePrefix) {
			n += size
		}
	}
	return n
}

// live is the data-live attribute path of a board number in a queue.
func queuePath(q string) string { return "totals.queues." + q }

func downloaderURL(slug, nick string) string { return "/" + slug + "/downloader/" + PathEscape(nick) }

func nickURL(nick string) string { return "/downloader/" + PathEscape(nick) + "/" }

func boardValue(l stats.Leader, order stats.Order) int64 {
	if order == stats.ByItems {
		return l.Items
	}
	return l.Bytes
}

// liveLeaders says whether the leaders table shows the board's head, which
// the live stream updates: the all-time board by bytes, first page.
func liveLeaders(v LeaderboardView) bool {
	return v.Ranking.Period == stats.AllTime && v.Ranking.Order == stats.ByBytes && v.Ranking.Offset == 0
}

// FeedNameRunes is how much of an item's name "Just done" shows: names
// may be URLs of kilobytes, and the feed lists 50.
const FeedNameRunes = 200

// clip is s cut to its first n characters and an ellipsis when longer,
// and whether it was cut.
func clip(s string, n int) (string, bool) {
	i := 0
	for at := range s {
		if i == n {
			return s[:at] + "…", true
		}
		i++
	}
	return s, false
}

// first is the first of two values: clip's text alone.
func first[T, U any](t T, _ U) T { return t }

func ptrFloat(f float64) *float64 { return &f }

func spanName(s stats.Span) string {
	switch s {
	case stats.SpanWeek:
		return "week"
	case stats.SpanMonth:
		return "month"
	case stats.SpanAll:
		return "all time"
	}
	return "day"
}

func periodName(p stats.Period) string {
	switch p {
	case stats.Day:
		return "in the last 24 hours"
	case stats.Week:
		return "in the last 7 days"
	}
	return "all time"
}

// current is the aria-current value of a switch's link.
func current(on bool) string {
	if on {
		return "page"
	}
	return "false"
}

func whenPtr(t *time.Time) string {
	if t == nil {
		return "—"
	}
	return When(*t)
}

func yesNo(b *bool) string {
	switch {
	case b == nil:
		return "—"
	case *b:
		return "yes"
	}
	return "no"
}

func intPtr(n *int64) string {
	if n == nil {
		return "—"
	}
	return FormatInt(*n)
}

// shardName labels a row of the backfeed table: the default scope has no
// name of its own, and the last row may sum the smaller shards.
func shardName(s stats.ShardNew) string {
	switch {
	case s.Others == 1:
		return "1 other shard"
	case s.Others > 1:
		return FormatInt(int64(s.Others)) + " other shards"
	case s.Shard == "":
		return "(no shard)"
	}
	return s.Shard
}

// ariaCurrent marks the row of the downloader a page is about.
func ariaCurrent(on bool) string {
	if on {
		return "true"
	}
	return "false"
}

// neighboursPage is the leaderboard's page that lists the downloader.
func neighboursPage(v DownloaderView) string {
	return boardParams{page: v.BoardPage}.url(v.Project.Slug) + "#leaderboard"
}
