package handlers

import (
	"fmt"
	"net/http"
	"strings"

	"tracker/projects"
	"tracker/views"
)

// adminBlockAdd is POST /admin/projects/{slug}/blocks/add: kind (nick or
// ip), value, reason, and scope "all" for every project (global admins).
func (h *Handler) adminBlockAdd(w http.ResponseWriter, r *http.Request) error {
	return h.blockAction(w, r, "add", func(p projects.Project, b projects.Block) error {
		b.CreatedBy = account(r).Username
		return h.projects.AddBlock(r.Context(), b)
	})
}

// adminBlockRemove is POST /admin/projects/{slug}/blocks/remove: kind,
// value and scope of the block to lift, once the admin saw which block it
// is and confirmed (confirmed=1).
func (h *Handler) adminBlockRemove(w http.ResponseWriter, r *http.Request) error {
	return h.blockAction(w, r, "remove", func(p projects.Project, b projects.Block) error {
		found, err := h.projects.RemoveBlock(r.Context(), b)
		if err == nil && !found {
			// Lifted meanwhile, by another admin.
			err = errorf(http.StatusNotFound, "unknown-block", "no block of %s %s here", b.Kind, b.Value)
		}
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
		return h.renderLimits(w, r, p, refused("invalid-block", err.Error()))
	}
	b.Reason = strings.TrimSpace(r.PostForm.Get("reason"))
	if r.PostForm.Get("scope") == "all" {
		if err := globalOnly(r); err != nil {
			return err
		}
	} else {
		b.ProjectID = &p.ID
	}
	if action == "remove" && !confirmed(r) {
		return h.askLift(w, r, p, b)
	}
	if err := fn(p, b); err != nil {
		if e := textRefusal(err); e != nil {
			return h.renderLimits(w, r, p, refused(e.Reason, e.Msg))
		}
		return err
	}
	return h.toSection(w, r, p, "limits", "Block "+action+": "+b.Kind+" "+b.Value+".")
}

// askLift says which block a lift removes: its value, scope, reason, who
// set it and when.
func (h *Handler) askLift(w http.ResponseWriter, r *http.Request, p projects.Project, b projects.Block) error {
	blocks, err := h.projects.Blocks(r.Context(), p)
	if err != nil {
		return err
	}
	for _, s := range blocks {
		if s.Kind != b.Kind || s.Value != b.Value || (s.ProjectID == nil) != (b.ProjectID == nil) {
			continue
		}
		what, scope := "the nick "+s.Value, "on this project"
		if s.Kind == projects.BlockIP {
			what = "the addresses " + s.Value
		}
		if s.ProjectID == nil {
			scope = "on every project"
		}
		set := "set from the shell"
		if s.CreatedBy != "" {
			set = "set by " + s.CreatedBy
		}
		reason := ""
		if s.Reason != "" {
			reason = fmt.Sprintf(", reason %q", s.Reason)
		}
		return h.askDestructive(w, r, p, "limits", confirmation{
			question: fmt.Sprintf("This lifts the block of %s %s (%s on %s%s): its warriors are handed items again within a second.",
				what, scope, set, views.When(s.CreatedAt), reason),
			button: "Lift the block of " + s.Value,
		})
	}
	return h.renderLimits(w, r, p, refused("unknown-block", fmt.Sprintf("No block of %s %s here: nothing to lift.", b.Kind, b.Value)))
}
