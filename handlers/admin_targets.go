package handlers

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
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
		return h.renderWarriors(w, r, p, refused("invalid-weight", "Weight: a whole number."))
	}
	enabled := r.PostForm.Get("enabled") == "true"
	if err := h.projects.AddTarget(r.Context(), p, projects.Target{URL: u, Weight: int32(weight), Enabled: enabled}); err != nil {
		reason := "invalid-target"
		if e := textRefusal(err); e != nil {
			reason = e.Reason
		}
		return h.renderWarriors(w, r, p, refused(reason, err.Error()))
	}
	return h.toSection(w, r, p, "warriors", "Upload target added: "+u+".")
}

// adminTargetRemove is POST /admin/projects/{slug}/targets/remove: url,
// once the admin saw what stays and confirmed (confirmed=1).
func (h *Handler) adminTargetRemove(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProjectForm(w, r)
	if err != nil {
		return err
	}
	u := strings.TrimSpace(r.PostForm.Get("url"))
	if !confirmed(r) {
		return h.askTargetRemove(w, r, p, u)
	}
	found, err := h.projects.RemoveTarget(r.Context(), p, u)
	if err != nil {
		return err
	}
	if !found {
		// Removed meanwhile, by another admin.
		return errorf(http.StatusNotFound, "unknown-target", "no upload target %s", u)
	}
	return h.toSection(w, r, p, "warriors", "Upload target removed: "+u+".")
}

// askTargetRemove says what removing the target u leaves: the targets on,
// or none, when the warriors' uploads are refused until one is added.
func (h *Handler) askTargetRemove(w http.ResponseWriter, r *http.Request, p projects.Project, u string) error {
	targets, err := h.projects.Targets(r.Context(), p)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(targets, func(t projects.Target) bool { return t.URL == u })
	if i < 0 {
		return h.renderWarriors(w, r, p, refused("unknown-target", fmt.Sprintf("No upload target %s: nothing to remove.", u)))
	}
	on := 0
	for j, t := range targets {
		if j != i && t.Enabled {
			on++
		}
	}
	after := fmt.Sprintf("%d other targets are on and take the uploads.", on)
	switch {
	case on == 1:
		after = "1 other target is on and takes the uploads."
	case on == 0:
		after = "No other target is on: warriors asking where to upload are refused until one is."
	}
	return h.askDestructive(w, r, p, "warriors", confirmation{
		question: fmt.Sprintf("This removes the upload target %s (weight %d) from %s. %s", u, targets[i].Weight, p.Slug, after),
		button:   "Remove " + u,
	})
}
