package handlers

import (
	"bytes"
	"net/http"
	"unicode/utf8"

	"tracker/naming"
	"tracker/stats"
	"tracker/views"
)

// chartShow answers GET /{project}/chart?span=all|month|week|day: the
// leaderboard's charts alone, as the page shows them (an HTML fragment),
// which static/live.js swaps in as completions come and as a reader hides
// or shows lines: hide=NICK (repeated, stats.ChartLines at most) draws
// those downloaders' lines off and scales the y axis to the others. The charts are read
// at most every few seconds whoever asks (stats.Hub.BoardChart), and a
// client that has them gets a 304.
func (h *Handler) chartShow(w http.ResponseWriter, r *http.Request) error {
	live, err := h.project(r)
	if err != nil {
		return err
	}
	span := stats.Span(r.URL.Query().Get("span"))
	if span == "" {
		span = stats.SpanAll
	}
	if !stats.ValidSpan(span) {
		return errorf(http.StatusBadRequest, "invalid-span", "span is all, month, week or day")
	}
	hidden := r.URL.Query()["hide"]
	if len(hidden) > stats.ChartLines {
		return errorf(http.StatusBadRequest, "invalid-hide", "hide names %d lines at most", stats.ChartLines)
	}
	for _, nick := range hidden {
		if utf8.RuneCountInString(nick) > naming.MaxNickRunes {
			return errorf(http.StatusBadRequest, "invalid-hide", "hide names a nick of %d characters at most", naming.MaxNickRunes)
		}
	}
	c, err := h.stats.BoardChart(r.Context(), live.Project, span)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := views.BoardChartsHiding(c, hidden).Render(r.Context(), &buf); err != nil {
		return err
	}
	// A piece of a page, not one to index.
	w.Header().Set("X-Robots-Tag", "noindex")
	return writeCachedAs(w, r, buf.Bytes(), chartMaxAge, "text/html; charset=utf-8")
}

// chartMaxAge is how long a client may keep the charts without asking:
// static/live.js asks again with no-cache, and gets a 304 when they did
// not change.
const chartMaxAge = 0
