package stats

import (
	"context"
	"time"

	"tracker/db"
	"tracker/projects"
)

// HourCount is a count in one hour.
type HourCount struct {
	At    time.Time // the hour's start
	Count int64
}

// ExpiriesByHour is how many of the project's claims ran out in each of
// the last hours, oldest first, every hour present (zeros included, the
// current one last): its failures over time, for the admin's overview.
func (h *Hub) ExpiriesByHour(ctx context.Context, p projects.Project, hours int) ([]HourCount, error) {
	end := h.now().UTC().Truncate(time.Hour)
	start := end.Add(-time.Duration(hours-1) * time.Hour)
	rows, err := h.q.ClaimExpiriesByHour(ctx, db.ClaimExpiriesByHourParams{ProjectID: p.ID, Since: start})
	if err != nil {
		return nil, err
	}
	out := make([]HourCount, hours)
	for i := range out {
		out[i].At = start.Add(time.Duration(i) * time.Hour)
	}
	for _, r := range rows {
		if i := int(r.At.UTC().Sub(start) / time.Hour); i >= 0 && i < hours {
			out[i].Count += r.Expired
		}
	}
	return out, nil
}
