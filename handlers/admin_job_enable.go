package handlers

import (
	"net/http"

	"tracker/jobs"
)

// adminJobEnable is POST /admin/jobs/enable (global admins): form job,
// switched on; it runs on its schedule again.
func (h *Handler) adminJobEnable(w http.ResponseWriter, r *http.Request) error {
	j, err := h.jobForm(w, r)
	if err != nil {
		return err
	}
	changed, err := jobs.SetEnabled(r.Context(), h.pool, j.Name, true)
	msg := j.Name + " is on."
	if !changed {
		msg = j.Name + " was on already: nothing changed."
	}
	return h.jobChanged(w, r, j.Name, msg, err)
}
