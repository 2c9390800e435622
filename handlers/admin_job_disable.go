package handlers

import (
	"fmt"
	"net/http"

	"tracker/jobs"
	"tracker/views"
)

// adminJobDisable is POST /admin/jobs/disable (global admins): form job,
// switched off in every tracker process once the admin saw what stops
// while it is off and confirmed (confirmed=1). Unconfirmed it is answered
// 400 `unconfirmed` with that question and changes nothing.
func (h *Handler) adminJobDisable(w http.ResponseWriter, r *http.Request) error {
	j, err := h.jobForm(w, r)
	if err != nil {
		return err
	}
	if !j.Enabled {
		return h.redirectWithFlash(w, r, "/admin/jobs", j.Name+" was off already: nothing changed.")
	}
	if !confirmed(r) {
		off := jobInfos[j.Name].off
		if off == "" {
			off = "its work waits"
		}
		v := views.AdminConfirmView{}
		v.AdminPage = h.adminPageOf(r)
		return h.confirmPage(w, r, v, "Confirm · Jobs", confirmation{
			question: fmt.Sprintf("This turns the %s job off in every tracker process: while it is off, %s. "+
				"Run now still runs it once; turn it on again here or with tracker jobs set %s --enabled.", j.Name, off, j.Name),
			button: "Turn " + j.Name + " off", back: "/admin/jobs"}, true)
	}
	_, err = jobs.SetEnabled(r.Context(), h.pool, j.Name, false)
	return h.jobChanged(w, r, j.Name, j.Name+" is off: it runs only when asked for until it is on again.", err)
}
