package handlers

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"tracker/projects"
)

// adminProjectConfig is POST /admin/projects/{slug}/config: the settings
// form of one section ("section"). The keys that changed are saved, all or
// none; a refusal shows the form again with the values sent and each
// refused key's reason beside it. Every change is in the audit log.
func (h *Handler) adminProjectConfig(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProjectForm(w, r)
	if err != nil {
		return err
	}
	section := projects.Section(r.PostForm.Get("section"))
	var keys []projects.Key[projects.Project]
	for _, k := range projects.Keys {
		if k.Section == section {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return errorf(http.StatusBadRequest, "unknown-section", "no settings section %q", section)
	}
	for name := range r.PostForm {
		if name != "section" && name != "confirmed" && name != "confirm" && !slices.ContainsFunc(keys, func(k projects.Key[projects.Project]) bool { return k.Name == name }) {
			return errorf(http.StatusBadRequest, "unknown-key", "%q is not a setting of this section", name)
		}
	}
	globalAdmin := account(r).IsAdmin()
	st := formState{status: http.StatusBadRequest, reason: "invalid-config", values: map[string]string{}, errs: projects.FieldErrors{}}
	var assignments, changed []string
	changes := map[string]string{}
	for _, k := range keys {
		value, sent := formValue(r.PostForm, k.Name, k.Input)
		if k.GlobalOnly && !globalAdmin && k.Input == projects.InputBool {
			// A locked checkbox is not sent: nothing to read.
			continue
		}
		if !sent {
			continue
		}
		st.values[k.Name] = value
		old := k.Value(p)
		if value == old {
			continue
		}
		if k.GlobalOnly && !globalAdmin {
			st.errs[k.Name] = "only global admins may change this"
			continue
		}
		assignments = append(assignments, k.Name+"="+value)
		changed = append(changed, k.Name)
		changes[k.Name] = value
	}
	if len(st.errs) > 0 {
		st.err = "Nothing was saved: " + st.errs.Error()
		return h.renderSection(w, r, p, string(section), st)
	}
	if len(assignments) == 0 {
		return h.toSection(w, r, p, string(section), "Nothing changed.")
	}
	var refused projects.FieldErrors
	// A change that cannot be undone is asked about first (once the values
	// are known to be good), the slug typed, as its own button asks:
	// nothing is saved until it is confirmed.
	if _, err := p.With(assignments); !errors.As(err, &refused) {
		risks, err := h.irreversibleChanges(r.Context(), p, changes)
		if err != nil {
			return err
		}
		if len(risks) > 0 && (!confirmed(r) || r.PostForm.Get("confirm") != p.Slug) {
			return h.askDestructive(w, r, p, string(section), confirmation{question: strings.Join(risks, " "),
				button: saveButton(p, changed), typed: p.Slug})
		}
	}
	updated, err := h.projects.Set(r.Context(), p, assignments)
	if errors.As(err, &refused) {
		st.errs, st.err = refused, "Nothing was saved: "+refused.Error()
		return h.renderSection(w, r, p, string(section), st)
	}
	if err != nil {
		return err
	}
	return h.toSection(w, r, updated, string(section), "Saved "+strings.Join(changed, ", ")+".")
}

// adminProjectPause is POST /admin/projects/{slug}/pause, and
// adminProjectResume POST .../resume.
func (h *Handler) adminProjectPause(w http.ResponseWriter, r *http.Request) error {
	return h.setPaused(w, r, true)
}

func (h *Handler) adminProjectResume(w http.ResponseWriter, r *http.Request) error {
	return h.setPaused(w, r, false)
}

func (h *Handler) setPaused(w http.ResponseWriter, r *http.Request, paused bool) error {
	p, err := h.adminProject(r)
	if err != nil {
		return err
	}
	value, msg := "false", "Resumed: items are handed out again."
	if paused {
		value, msg = "true", "Paused: no items are handed out."
	}
	if p, err = h.projects.Set(r.Context(), p, []string{"paused=" + value}); err != nil {
		return err
	}
	return h.toSection(w, r, p, "", msg)
}
