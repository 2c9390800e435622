package handlers

import (
	"fmt"
	"net/http"
)

// adminSiteRelease is POST /admin/projects/{slug}/sites/release: every item
// of the site named "site" that is out goes back to its queue (its
// warriors' dones are still taken), and the site is due at once, its
// interval and its limit starting afresh.
func (h *Handler) adminSiteRelease(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProjectForm(w, r)
	if err != nil {
		return err
	}
	asked := r.PostForm.Get("site")
	name, n, err := h.items.ReleaseSite(r.Context(), p, asked)
	if err != nil {
		return h.siteRefused(w, r, p, siteError(err, asked))
	}
	return h.toSite(w, r, p, name, fmt.Sprintf("Released %d claims of %s: their items went back to their queues, and the site is due now.", n, name))
}
