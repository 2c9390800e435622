package handlers

import (
	"net/http"

	"tracker/jobs"
)

// adminJobRun is POST /admin/jobs/run (global admins): form job. The run
// is asked for, not run in the request: the first tracker process to look
// (they look every second) runs it once, switched on or not, after a run
// under way ends, as `tracker jobs run` does.
func (h *Handler) adminJobRun(w http.ResponseWriter, r *http.Request) error {
	j, err := h.jobForm(w, r)
	if err != nil {
		return err
	}
	msg := j.Name + ": a run is asked for; a tracker process starts it within a second."
	if j.Running {
		msg = j.Name + ": a run is asked for; it starts once the run under way ends."
	}
	return h.jobChanged(w, r, j.Name, msg, jobs.RequestRun(r.Context(), h.pool, j.Name))
}
