package handlers

import (
	"cmp"
	"net/http"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"tracker/db"
	"tracker/projects"
	"tracker/views"
)

// adminBlock is POST /admin/projects/{slug}/blocks/{add|remove}: kind (nick
// or ip), value, reason, and scope "all" for every project (global admins).
func (h *Handler) adminBlock(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProject(r)
	if err != nil {
		return err
	}
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	b, err := projects.ParseBlock(r.PostForm.Get("kind"), strings.TrimSpace(r.PostForm.Get("value")))
	if err != nil {
		return h.renderAdminProject(w, r, http.StatusBadRequest, p, "", err.Error())
	}
	b.Reason = strings.TrimSpace(r.PostForm.Get("reason"))
	scope := p.Slug
	if r.PostForm.Get("scope") == "all" {
		if err := globalOnly(r); err != nil {
			return err
		}
		scope = "all"
	} else {
		b.ProjectID = &p.ID
	}
	action := r.PathValue("action")
	switch action {
	case "add":
		err = h.projects.AddBlock(r.Context(), b)
	case "remove":
		_, err = h.projects.RemoveBlock(r.Context(), b)
	default:
		return errorf(http.StatusNotFound, "not-found", "no such action")
	}
	if err != nil {
		return err
	}
	detail := map[string]any{"kind": b.Kind, "value": b.Value, "reason": b.Reason, "scope": scope}
	if err := record(r, db.New(h.pool), "block."+action, p.ID, detail); err != nil {
		return err
	}
	return h.renderAdminProject(w, r, http.StatusOK, p, "Block "+action+": "+b.Kind+" "+b.Value+".", "")
}

// adminTarget is POST /admin/projects/{slug}/targets/{add|remove}: url,
// weight, enabled.
func (h *Handler) adminTarget(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProject(r)
	if err != nil {
		return err
	}
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	u := strings.TrimSpace(r.PostForm.Get("url"))
	action := r.PathValue("action")
	detail := map[string]any{"url": u}
	switch action {
	case "add":
		weight, werr := strconv.Atoi(cmp.Or(strings.TrimSpace(r.PostForm.Get("weight")), "1"))
		enabled := r.PostForm.Get("enabled") != "false"
		detail["weight"], detail["enabled"] = weight, enabled
		if werr != nil {
			return h.renderAdminProject(w, r, http.StatusBadRequest, p, "", "weight: a whole number")
		}
		err = h.projects.AddTarget(r.Context(), p, projects.Target{URL: u, Weight: int32(weight), Enabled: enabled})
		if err != nil {
			return h.renderAdminProject(w, r, http.StatusBadRequest, p, "", err.Error())
		}
	case "remove":
		if _, err := h.projects.RemoveTarget(r.Context(), p, u); err != nil {
			return err
		}
	default:
		return errorf(http.StatusNotFound, "not-found", "no such action")
	}
	if err := record(r, db.New(h.pool), "target."+action, p.ID, detail); err != nil {
		return err
	}
	return h.renderAdminProject(w, r, http.StatusOK, p, "Upload target "+action+": "+u+".", "")
}

// adminBackfeedKey is POST /admin/projects/{slug}/backfeed-key: a new
// random key; the old backfeed URL stops working.
func (h *Handler) adminBackfeedKey(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProject(r)
	if err != nil {
		return err
	}
	if p, err = h.projects.RotateBackfeedKey(r.Context(), p); err != nil {
		return err
	}
	if err := record(r, db.New(h.pool), "project.backfeed_key", p.ID, nil); err != nil {
		return err
	}
	return h.renderAdminProject(w, r, http.StatusOK, p, "New backfeed key.", "")
}

// adminSettings is GET and POST /admin/settings (global admins): the
// tracker-wide settings of the projects file and the pages.
func (h *Handler) adminSettings(w http.ResponseWriter, r *http.Request) error {
	if err := globalOnly(r); err != nil {
		return err
	}
	ctx := r.Context()
	s, err := h.projects.Settings(ctx)
	if err != nil {
		return err
	}
	flash, formErr, status := "", "", http.StatusOK
	if r.Method == http.MethodPost {
		if err := parseSmallForm(w, r); err != nil {
			return err
		}
		var assignments []string
		for _, k := range projects.SettingKeys {
			if vs, ok := r.PostForm[k]; ok && len(vs) == 1 {
				assignments = append(assignments, k+"="+vs[0])
			}
		}
		updated, err := h.projects.SetSettings(ctx, assignments)
		if err != nil {
			formErr, status = err.Error(), http.StatusBadRequest
		} else {
			s, flash = updated, "Saved."
			if err := record(r, db.New(h.pool), "settings", 0, map[string]any{"settings": updated}); err != nil {
				return err
			}
		}
	}
	return render(w, r, status, adminSettingsPage(account(r).Username, s, flash, formErr))
}

func adminSettingsPage(username string, s projects.Settings, flash, formErr string) templ.Component {
	v := views.AdminSettingsView{Username: username, Flash: flash, Error: formErr, Fields: []views.ConfigField{
		{Key: "seesaw_version", Value: s.SeesawVersion},
		{Key: "auto_project", Value: s.AutoProject},
		{Key: "broadcast_message", Value: s.BroadcastMessage},
		{Key: "tracker_banner_html", Value: s.BannerHTML},
	}}
	return views.Layout("Settings", views.AdminSettings(v))
}
