package handlers

import (
	"cmp"
	"net/http"
	"strconv"
	"strings"

	"tracker/projects"
)

// adminTargetAdd is POST /admin/projects/{slug}/targets/add: url, weight
// and the checkbox "enabled"; a URL already listed is changed.
func (h *Handler) adminTargetAdd(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProjectForm(w, r)
	if err != nil {
		return err
	}
	u := strings.TrimSpace(r.PostForm.Get("url"))
	weight, err := strconv.Atoi(cmp.Or(strings.TrimSpace(r.PostForm.Get("weight")), "1"))
	if err != nil {
		return h.renderWarriors(w, r, p, refused("Weight: a whole number."))
	}
	enabled := r.PostForm.Get("enabled") == "true"
	if err := h.projects.AddTarget(r.Context(), p, projects.Target{URL: u, Weight: int32(weight), Enabled: enabled}); err != nil {
		return h.renderWarriors(w, r, p, refused(err.Error()))
	}
	return h.toSection(w, r, p, "warriors", "Upload target added: "+u+".")
}

// adminTargetRemove is POST /admin/projects/{slug}/targets/remove: url.
func (h *Handler) adminTargetRemove(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProjectForm(w, r)
	if err != nil {
		return err
	}
	u := strings.TrimSpace(r.PostForm.Get("url"))
	if _, err := h.projects.RemoveTarget(r.Context(), p, u); err != nil {
		return err
	}
	return h.toSection(w, r, p, "warriors", "Upload target removed: "+u+".")
}
