package handlers

import (
	"errors"
	"net/http"

	"tracker/projects"
	"tracker/views"
)

// adminSettingsShow is GET /admin/settings (global admins): the
// tracker-wide settings of the projects file and the pages.
func (h *Handler) adminSettingsShow(w http.ResponseWriter, r *http.Request) error {
	if err := globalOnly(r); err != nil {
		return err
	}
	s, err := h.adm.projects.Settings(r.Context())
	if err != nil {
		return err
	}
	return h.renderSettings(w, r, s, shown())
}

// adminSettingsSave is POST /admin/settings: every setting, all or none.
func (h *Handler) adminSettingsSave(w http.ResponseWriter, r *http.Request) error {
	if err := globalOnly(r); err != nil {
		return err
	}
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	ctx := r.Context()
	st := formState{status: http.StatusBadRequest, reason: "invalid-setting", values: map[string]string{}}
	var assignments []string
	for _, k := range projects.SettingKeys {
		if v, ok := formValue(r.PostForm, k.Name, k.Input); ok {
			assignments = append(assignments, k.Name+"="+v)
			st.values[k.Name] = v
		}
	}
	updated, err := h.projects.SetSettings(ctx, assignments)
	var refused projects.FieldErrors
	if errors.As(err, &refused) {
		st.errs, st.err = refused, "Nothing was saved: "+refused.Error()
		return h.renderSettings(w, r, updated, st)
	}
	if err != nil {
		return err
	}
	return h.redirectWithFlash(w, r, "/admin/settings", "Saved.")
}

func (h *Handler) renderSettings(w http.ResponseWriter, r *http.Request, s projects.Settings, st formState) error {
	v := views.AdminSettingsView{AdminPage: h.adminPageOf(r),
		Fields: fields(projects.SettingKeys, s, func(projects.Key[projects.Settings]) bool { return true }, true, st)}
	if st.err != "" {
		v.Flash, v.Error = "", st.err
	}
	if s.AutoProject != "" {
		// The choice the projects file serves, made now if it is due.
		c, err := h.adm.projects.AutoChoice(r.Context())
		if err != nil {
			return err
		}
		v.Auto = views.AutoChoiceView{Slug: c.Slug, Reason: c.Reason, DecidedAt: c.DecidedAt}
		if c.Slug == "" {
			v.AutoProjectWarning = "No project of auto_project runs (each is paused, finished, hidden or deleted): the projects file says null, and warriors on auto run nothing. Name a project that runs."
		} else if p, err := h.adm.projects.Get(r.Context(), c.Slug); errors.Is(err, projects.ErrNotFound) || err == nil && !p.Config.Listed() {
			// Finished, hidden or deleted since it was chosen.
			v.AutoProjectWarning = c.Slug + " has left the warriors' list since it was chosen: the projects file says null, and warriors on auto run nothing, until the choice is made again within a minute."
		} else if err != nil {
			return err
		}
	}
	return renderForm(w, r, st, views.AdminLayout("Settings", views.AdminSettings(v)))
}
