package handlers

import (
	"net/http"
	"strings"

	"tracker/projects"
)

// adminBlockAdd is POST /admin/projects/{slug}/blocks/add: kind (nick or
// ip), value, reason, and scope "all" for every project (global admins).
func (h *Handler) adminBlockAdd(w http.ResponseWriter, r *http.Request) error {
	return h.blockAction(w, r, "add", func(p projects.Project, b projects.Block) error {
		return h.projects.AddBlock(r.Context(), b)
	})
}

// adminBlockRemove is POST /admin/projects/{slug}/blocks/remove: kind,
// value and scope of the block to lift.
func (h *Handler) adminBlockRemove(w http.ResponseWriter, r *http.Request) error {
	return h.blockAction(w, r, "remove", func(p projects.Project, b projects.Block) error {
		_, err := h.projects.RemoveBlock(r.Context(), b)
		return err
	})
}

func (h *Handler) blockAction(w http.ResponseWriter, r *http.Request, action string, fn func(projects.Project, projects.Block) error) error {
	p, err := h.adminProjectForm(w, r)
	if err != nil {
		return err
	}
	b, err := projects.ParseBlock(r.PostForm.Get("kind"), strings.TrimSpace(r.PostForm.Get("value")))
	if err != nil {
		return h.renderLimits(w, r, p, refused(err.Error()))
	}
	b.Reason = strings.TrimSpace(r.PostForm.Get("reason"))
	if r.PostForm.Get("scope") == "all" {
		if err := globalOnly(r); err != nil {
			return err
		}
	} else {
		b.ProjectID = &p.ID
	}
	if err := fn(p, b); err != nil {
		return err
	}
	return h.toSection(w, r, p, "limits", "Block "+action+": "+b.Kind+" "+b.Value+".")
}
