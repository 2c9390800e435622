package handlers

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"tracker/stats"
	"tracker/views"
)

// leaderboardPageSize is how many downloaders a leaderboard page lists.
const leaderboardPageSize = 100

// leaderboardShow is GET /{project}/: the project's leaderboard. Query:
// period=all|24h|7d, order=bytes|items, page=N, all=1,
// span=all|month|week|day (the chart's; all by default), item=NAME (the
// lookup box).
func (h *Handler) leaderboardShow(w http.ResponseWriter, r *http.Request) error {
	live, err := h.project(r)
	if err != nil {
		return err
	}
	ctx, q := r.Context(), r.URL.Query()
	site, err := h.site(r)
	if err != nil {
		return err
	}
	board, _, _, err := h.stats.Board(ctx, live.Project)
	if err != nil {
		return err
	}
	v := views.LeaderboardView{Site: site, Project: projectInfo(live.Project), Board: *board, PageSize: leaderboardPageSize, Now: time.Now()}

	page, err := strconv.Atoi(q.Get("page"))
	if err != nil || page < 1 {
		page = 1
	}
	offset, limit := (page-1)*leaderboardPageSize, leaderboardPageSize
	if v.ShowAll = q.Get("all") == "1"; v.ShowAll {
		offset, limit = 0, -1
	}
	if v.Ranking, err = h.stats.Ranking(ctx, live.Project, stats.Period(q.Get("period")), stats.Order(q.Get("order")), offset, limit); err != nil {
		return err
	}
	if v.Ranking.Period == stats.AllTime && v.Ranking.Order == stats.ByBytes && offset == 0 && !v.ShowAll {
		v.Ranking = withHead(v.Ranking, board.Leaders, leaderboardPageSize)
	}
	// The whole project by default: a chart that fits what was done.
	span := stats.Span(q.Get("span"))
	if !stats.ValidSpan(span) {
		span = stats.SpanAll
	}
	if v.Chart, err = h.stats.BoardChart(ctx, live.Project, span); err != nil {
		return err
	}
	if name := q.Get("item"); name != "" {
		full, err := h.itemDetails(w, r, live)
		if err != nil {
			return err
		}
		if v.Lookup, err = h.lookupItem(ctx, live, name, full); err != nil {
			return err
		}
	}
	c := views.Page(site, displayTitle(live.Project), views.Leaderboard(v))
	if v.ShowAll {
		return stream(w, r, http.StatusOK, c)
	}
	return render(w, r, http.StatusOK, c)
}

// downloaderShow is GET /{project}/downloader/{nick}.
func (h *Handler) downloaderShow(w http.ResponseWriter, r *http.Request) error {
	live, err := h.project(r)
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
		return errorf(http.StatusNotFound, "unknown-downloader", "%s has done nothing on %s yet", nick, live.Slug)
	}
	if err != nil {
		return err
	}
	span := stats.Span(r.URL.Query().Get("span"))
	if !stats.ValidSpan(span) {
		span = stats.SpanWeek
	}
	chart, err := h.stats.Chart(ctx, live.Project, span, nick)
	if err != nil {
		return err
	}
	v := views.DownloaderView{Site: site, Project: projectInfo(live.Project), Stats: d, Chart: chart, Now: time.Now()}
	return render(w, r, http.StatusOK, views.Page(site, nick+" on "+displayTitle(live.Project), views.Downloader(v)))
}

// nickShow is GET /downloader/{nick}/: a nick on every project.
func (h *Handler) nickShow(w http.ResponseWriter, r *http.Request) error {
	nick := r.PathValue("nick")
	site, err := h.site(r)
	if err != nil {
		return err
	}
	t, err := h.stats.Nick(r.Context(), nick)
	if err != nil {
		return err
	}
	if len(t.Projects) == 0 {
		return errorf(http.StatusNotFound, "unknown-downloader", "%s has done nothing here yet", nick)
	}
	return render(w, r, http.StatusOK, views.Page(site, nick, views.Nick(views.NickView{Site: site, Totals: t, Now: time.Now()})))
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
