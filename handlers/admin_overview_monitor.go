package handlers

import (
	"context"
	"time"

	"tracker/projects"
	"tracker/stats"
	"tracker/views"
)

// failureHours is how many hours the overview shows claims running out in.
const failureHours = 24

// overviewMonitor is how a project runs now and over the last day, for
// its overview. Every part is read for every viewer at most every few
// seconds (the board and the chart of stats.Hub), but the expiries by
// hour, which read one index range of at most a day.
func (h *Handler) overviewMonitor(ctx context.Context, p projects.Project) (views.AdminMonitor, error) {
	b, _, _, err := h.stats.Board(ctx, p)
	if err != nil {
		return views.AdminMonitor{}, err
	}
	m := views.AdminMonitor{ItemsPerSec1m: b.Rates.ItemsPerSec1m, ItemsPerSec5m: b.Rates.ItemsPerSec5m,
		ItemsPerSec1h: b.Rates.ItemsPerSec1h, BytesPerSec5m: b.Rates.BytesPerSec5m, Active: b.Totals.Active,
		Downloaders: b.Totals.Downloaders, ActiveWindow: stats.ActiveWindow, Failed: b.Totals.Errors, MaxClaims: p.Config.MaxClaims}
	if s := b.Health.RoundTripSeconds; s != nil {
		d := time.Duration(*s * float64(time.Second))
		m.RoundTrip = &d
	}
	if m.Chart, err = h.stats.BoardChart(ctx, p, stats.SpanDay); err != nil {
		return m, err
	}
	hours, err := h.stats.ExpiriesByHour(ctx, p, failureHours)
	if err != nil {
		return m, err
	}
	var most int64
	for _, c := range hours {
		most = max(most, c.Count)
		m.Expired += c.Count
	}
	for _, c := range hours {
		bar := views.AdminAgeBar{Label: c.At.Format("15:04"), Claims: c.Count}
		if most > 0 {
			bar.Percent = float64(c.Count) * 100 / float64(most)
		}
		m.Failures = append(m.Failures, bar)
	}
	return m, nil
}
