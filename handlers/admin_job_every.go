package handlers

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"tracker/jobs"
	"tracker/views"
)

// adminJobEvery is POST /admin/jobs/every (global admins): form job and
// every, its new interval, as the page shows intervals ("30 s", "10 min",
// "1 h 30 min", "2 d") or as `tracker jobs set --every` takes them ("30s",
// "1h30m"). The next run comes no later than an interval from now. An
// interval that is none, or outside 1 s to ten years, is refused 400
// `invalid-interval`, shown beside the field, and changes nothing.
func (h *Handler) adminJobEvery(w http.ResponseWriter, r *http.Request) error {
	j, err := h.jobForm(w, r)
	if err != nil {
		return err
	}
	sent := r.PostForm.Get("every")
	every, err := parseEvery(sent)
	if err == nil {
		var changed bool
		changed, err = jobs.SetEvery(r.Context(), h.pool, j.Name, every)
		if err == nil && !changed {
			return h.redirectWithFlash(w, r, "/admin/jobs", fmt.Sprintf("%s runs every %s already: nothing changed.", j.Name, views.FormatDuration(every)))
		}
	}
	if errors.Is(err, jobs.ErrInterval) || errors.Is(err, errNoInterval) {
		w.Header().Set("X-Tracker-Reason", "invalid-interval")
		return h.renderJobs(w, r, http.StatusBadRequest, jobsRefusal{job: j.Name, value: sent, err: err.Error()})
	}
	return h.jobChanged(w, r, j.Name, fmt.Sprintf("%s runs every %s.", j.Name, views.FormatDuration(every)), err)
}

var (
	errNoInterval = errors.New("write an interval as 30 s, 10 min, 1 h or 2 d (or 30s, 10m, 1h)")
	// everyPart is one number and its unit.
	everyPart = regexp.MustCompile(`^(\d+(?:\.\d+)?)\s*(ms|s|min|m|h|d)`)
	everyUnit = map[string]float64{"ms": 0.001, "s": 1, "min": 60, "m": 60, "h": 3600, "d": 86400}
)

// parseEvery reads an interval: numbers with their units, summed.
func parseEvery(s string) (time.Duration, error) {
	rest := strings.TrimSpace(s)
	if rest == "" {
		return 0, fmt.Errorf("no interval: %w", errNoInterval)
	}
	var seconds float64
	for rest != "" {
		m := everyPart.FindStringSubmatch(rest)
		if m == nil {
			return 0, fmt.Errorf("%q is no interval: %w", s, errNoInterval)
		}
		n, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			return 0, fmt.Errorf("%q is no interval: %w", s, errNoInterval)
		}
		seconds += n * everyUnit[m[2]]
		rest = strings.TrimSpace(rest[len(m[0]):])
	}
	// Refused before it could overflow a duration.
	if seconds > jobs.MaxEvery.Seconds() || math.IsInf(seconds, 0) {
		return 0, fmt.Errorf("interval %s: %w", strings.TrimSpace(s), jobs.ErrInterval)
	}
	return time.Duration(math.Round(seconds*1000)) * time.Millisecond, nil
}
