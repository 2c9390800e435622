package handlers

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"tracker/views"
)

// adminClaimsRelease is POST /admin/projects/{slug}/claims/release: the
// claims older than older_than minutes, of downloader, starting with
// prefix and matching pattern (each when given) go back to their queues,
// once the admin confirmed how many.
func (h *Handler) adminClaimsRelease(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProjectForm(w, r)
	if err != nil {
		return err
	}
	downloader, sel := strings.TrimSpace(r.PostForm.Get("downloader")), selection(r.PostForm)
	minutes := 0
	if s := strings.TrimSpace(r.PostForm.Get("older_than")); s != "" {
		if minutes, err = strconv.Atoi(s); err != nil || minutes < 0 {
			return h.renderClaims(w, r, p, refused("invalid-older-than", "Older than: a whole number of minutes."))
		}
	}
	age := time.Duration(minutes) * time.Minute
	if !confirmed(r) {
		n, err := h.adm.items.CountClaimsWhere(r.Context(), p, downloader, age, sel)
		if st, ok := invalid(err); ok {
			return h.renderClaims(w, r, p, st)
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return h.renderClaims(w, r, p, refused("no-match", "No claim matches: nothing to release."))
		}
		what := ""
		if downloader != "" {
			what += " of " + downloader
		}
		if minutes > 0 {
			what += fmt.Sprintf(" older than %d minutes", minutes)
		}
		return h.askConfirmation(w, r, p, "claims",
			fmt.Sprintf("This releases %s claims%s %s: the items go back to their queues and their warriors' dones are still taken.",
				views.FormatInt(n), what, describeSelection(sel)),
			"Release "+views.FormatInt(n)+" claims", "")
	}
	n, err := h.items.ReleaseWhere(r.Context(), p, downloader, age, sel)
	if st, ok := invalid(err); ok {
		return h.renderClaims(w, r, p, st)
	}
	if err != nil {
		return err
	}
	return h.toSection(w, r, p, "claims", fmt.Sprintf("Released %d claims.", n))
}
