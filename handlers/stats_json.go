package handlers

import (
	"encoding/json"
	"net/http"
	"time"

	"tracker/stats"
)

// statsJSON answers GET /{project}/stats.json: the project's board, as the
// live stream sends it (see stats.Board), with the original tracker's keys
// beside it for the readers written for that (see stats.Hub.StatsJSON).
func (h *Handler) statsJSON(w http.ResponseWriter, r *http.Request) error {
	live, err := h.readProject(r)
	if err != nil {
		return err
	}
	body, gzipped, err := h.stats.StatsJSON(r.Context(), live.Project)
	if err != nil {
		return err
	}
	return writeCachedGzipped(w, r, body, gzipped, time.Second)
}

// chartsJSON answers GET /{project}/charts.json?span=day|week|month|all
// [&downloader=NICK]: completions over time (see stats.Chart), the
// project's with its top downloaders' lines.
func (h *Handler) chartsJSON(w http.ResponseWriter, r *http.Request) error {
	live, err := h.readProject(r)
	if err != nil {
		return err
	}
	span := stats.Span(r.URL.Query().Get("span"))
	if span == "" {
		span = stats.SpanDay
	}
	if !stats.ValidSpan(span) {
		return errorf(http.StatusBadRequest, "invalid-span", "span is day, week, month or all")
	}
	var c stats.Chart
	if nick := r.URL.Query().Get("downloader"); nick != "" {
		c, err = h.stats.Chart(r.Context(), live.Project, span, nick)
	} else {
		c, err = h.stats.BoardChart(r.Context(), live.Project, span)
	}
	if err != nil {
		return err
	}
	body, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return writeCached(w, r, body, 10*time.Second)
}
