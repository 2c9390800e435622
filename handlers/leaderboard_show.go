package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"tracker/projects"
	"tracker/stats"
	"tracker/views"
)

// leaderboardPageSize is how many downloaders a leaderboard page lists:
// with each row bounded (views.leaderRow), every page is bounded in bytes
// however many downloaders a project has.
const leaderboardPageSize = 100

// leaderboardMaxPage bounds the page asked for, so that its offset is a
// number (pages past the last show the last).
const leaderboardMaxPage = 1 << 24

// leaderboardShow is GET /{project}/: the project's leaderboard. Query:
// period=all|24h|7d, order=bytes|items, page=N, span=all|month|week|day
// (the chart's; all by default), item=NAME (the lookup box). A page of the
// board is the same for every viewer, and is rendered once per cache
// lifetime however many ask; one with the lookup box (which depends on who
// asks) is rendered for each. all=1, which once listed every downloader
// on one page (18 MB for 50,000 of them), is sent to the first page.
func (h *Handler) leaderboardShow(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	if q.Has("all") {
		q.Del("all")
		q.Del("page")
		to := r.URL.Path
		if len(q) > 0 {
			to += "?" + q.Encode()
		}
		http.Redirect(w, r, to+"#leaderboard", http.StatusMovedPermanently)
		return nil
	}
	live, err := h.readProject(r)
	if err != nil {
		return err
	}
	page, err := strconv.Atoi(q.Get("page"))
	if err != nil || page < 1 {
		page = 1
	}
	page = min(page, leaderboardMaxPage)
	period, order, span := stats.Period(q.Get("period")), stats.Order(q.Get("order")), stats.Span(q.Get("span"))
	if period != stats.Day && period != stats.Week {
		period = stats.AllTime
	}
	if order != stats.ByItems {
		order = stats.ByBytes
	}
	if !stats.ValidSpan(span) {
		span = stats.SpanAll
	}
	if name := q.Get("item"); name != "" {
		v, err := h.leaderboardView(r.Context(), live, period, order, span, page)
		if err != nil {
			return err
		}
		full, err := h.itemDetails(w, r, live)
		if err != nil {
			return err
		}
		if v.Lookup, err = h.lookupItem(r.Context(), live, name, full, h.readLookup); err != nil {
			return err
		}
		return render(w, r, http.StatusOK, views.Page(v.Site, displayTitle(live.Project), views.Leaderboard(v)))
	}
	key := pageKey{route: "leaderboard", project: live.ID, query: fmt.Sprint(period, order, span, page)}
	kept, err := h.reads.pages.Get(r.Context(), key, func(ctx context.Context) (keptPage, error) {
		v, err := h.leaderboardView(ctx, live, period, order, span, page)
		if err != nil {
			return keptPage{}, err
		}
		body, err := rendered(ctx, views.Page(v.Site, displayTitle(live.Project), views.Leaderboard(v)))
		if err != nil {
			return keptPage{}, err
		}
		return keepPage(body)
	})
	if err != nil {
		return err
	}
	return writePage(w, r, kept)
}

// leaderboardView reads what a page of the leaderboard shows: a page past
// the last shows the last.
func (h *Handler) leaderboardView(ctx context.Context, live *projects.Live, period stats.Period, order stats.Order, span stats.Span, page int) (views.LeaderboardView, error) {
	site, err := h.siteIn(ctx)
	if err != nil {
		return views.LeaderboardView{}, err
	}
	board, _, _, err := h.stats.Board(ctx, live.Project)
	if err != nil {
		return views.LeaderboardView{}, err
	}
	v := views.LeaderboardView{Site: site, Project: projectInfo(live.Project), Board: *board, PageSize: leaderboardPageSize, Now: time.Now()}
	if v.Ranking, err = h.stats.Ranking(ctx, live.Project, period, order, (page-1)*leaderboardPageSize, leaderboardPageSize); err != nil {
		return v, err
	}
	if last := (v.Ranking.Total + leaderboardPageSize - 1) / leaderboardPageSize; page > last && last > 0 {
		if v.Ranking, err = h.stats.Ranking(ctx, live.Project, period, order, (last-1)*leaderboardPageSize, leaderboardPageSize); err != nil {
			return v, err
		}
	}
	if v.Ranking.Period == stats.AllTime && v.Ranking.Order == stats.ByBytes && v.Ranking.Offset == 0 {
		v.Ranking = withHead(v.Ranking, board.Leaders, leaderboardPageSize)
	}
	v.Chart, err = h.stats.BoardChart(ctx, live.Project, span)
	return v, err
}

// downloaderNeighbours is how many downloaders a downloader's page shows
// above them on the board, and below.
const downloaderNeighbours = 3

// downloaderShow is GET /{project}/downloader/{nick}: the nick's numbers,
// their rank and their neighbours on the board; a page saying they have
// done nothing yet (404) for a nick the project has not seen.
func (h *Handler) downloaderShow(w http.ResponseWriter, r *http.Request) error {
	live, err := h.readProject(r)
	if err != nil {
		return err
	}
	ctx, nick := r.Context(), r.PathValue("nick")
	site, err := h.site(r)
	if err != nil {
		return err
	}
	d, err := h.stats.Downloader(ctx, live.Project, nick)
	if errors.Is(err, stats.ErrNoDownloader) {
		// A page, not a bare error: a volunteer who typed their nick
		// before their warrior's first item learns why, and may try
		// another spelling.
		w.Header().Set("X-Tracker-Reason", "unknown-downloader")
		v := views.DownloaderView{Site: site, Project: projectInfo(live.Project), Stats: stats.DownloaderStats{Nick: nick}, Now: time.Now()}
		return render(w, r, http.StatusNotFound, views.Page(site, nick+" on "+displayTitle(live.Project), views.DownloaderUnknown(v)))
	}
	if err != nil {
		return err
	}
	span := stats.Span(r.URL.Query().Get("span"))
	if !stats.ValidSpan(span) {
		span = stats.SpanWeek
	}
	// static/pages.js rereads the page for its numbers alone (live=1):
	// the chart is not read for it.
	var chart stats.Chart
	if r.URL.Query().Get("live") != "1" {
		if chart, err = h.stats.Chart(ctx, live.Project, span, nick); err != nil {
			return err
		}
	}
	v := views.DownloaderView{Site: site, Project: projectInfo(live.Project), Stats: d, Chart: chart, Now: time.Now()}
	if d.Rank > 0 {
		// The downloaders just above and below: who to catch up with.
		v.BoardPage = (d.Rank-1)/leaderboardPageSize + 1
		from := max(d.Rank-1-downloaderNeighbours, 0)
		if v.Neighbours, err = h.stats.Ranking(ctx, live.Project, stats.AllTime, stats.ByBytes, from, 2*downloaderNeighbours+1); err != nil {
			return err
		}
	}
	return render(w, r, http.StatusOK, views.Page(site, nick+" on "+displayTitle(live.Project), views.Downloader(v)))
}

// nickShow is GET /downloader/{nick}/: a nick on every public project.
func (h *Handler) nickShow(w http.ResponseWriter, r *http.Request) error {
	nick := r.PathValue("nick")
	site, err := h.site(r)
	if err != nil {
		return err
	}
	t, err := h.publicNick(r, nick)
	if err != nil {
		return err
	}
	return render(w, r, http.StatusOK, views.Page(site, nick, views.Nick(views.NickView{Site: site, Totals: t, Now: time.Now()})))
}

// publicNick is a nick's totals on every public project. A hidden project
// is left out, as from the home page and /projects.json: its own pages
// work, for those who know its slug, but no public page names it.
func (h *Handler) publicNick(r *http.Request, nick string) (stats.NickTotals, error) {
	t, err := h.stats.Nick(r.Context(), nick)
	if err != nil {
		return t, err
	}
	ps, err := h.readList(r.Context())
	if err != nil {
		return t, err
	}
	// A project not in the list kept (made or renamed this second) waits
	// to be known public.
	public := map[string]bool{}
	for _, p := range ps {
		public[p.Slug] = !p.Config.Hidden
	}
	t = t.Only(func(d stats.DownloaderStats) bool { return public[d.Project] })
	if len(t.Projects) == 0 {
		return t, errorf(http.StatusNotFound, "unknown-downloader", "%s has done nothing here yet", nick)
	}
	return t, nil
}

// withHead puts the board's head, read this second, at the top of the
// all-time ranking, which is reread only every few seconds: the first page
// then shows what the live stream shows.
func withHead(r stats.Ranking, head []stats.Leader, size int) stats.Ranking {
	onHead := map[string]bool{}
	for _, l := range head {
		onHead[l.Nick] = true
	}
	leaders := append([]stats.Leader{}, head...)
	for _, l := range r.Leaders {
		if len(leaders) == size {
			break
		}
		if !onHead[l.Nick] {
			l.Rank = len(leaders) + 1
			leaders = append(leaders, l)
		}
	}
	r.Leaders = leaders
	r.Total = max(r.Total, len(head))
	return r
}
