package handlers

import (
	"net/http"
	"strings"

	"tracker/projects"
)

// apiTarget is an upload target as the admin API answers it
// (openapi.yaml, Target).
type apiTarget struct {
	URL     string `json:"url"`
	Weight  int32  `json:"weight"`
	Enabled bool   `json:"enabled"`
}

func (t apiTarget) texts() []string { return []string{t.URL} }

// apiTargets is GET /api/v1/projects/{slug}/targets: the project's upload
// targets.
func (h *Handler) apiTargets(w http.ResponseWriter, r *http.Request) error {
	p, err := h.apiProject(r)
	if err != nil {
		return err
	}
	return h.writeTargets(w, r, p)
}

func (h *Handler) writeTargets(w http.ResponseWriter, r *http.Request, p projects.Project) error {
	ts, err := h.adm.projects.Targets(r.Context(), p)
	if err != nil {
		return err
	}
	out := make([]apiTarget, len(ts))
	for i, t := range ts {
		out[i] = apiTarget{URL: t.URL, Weight: t.Weight, Enabled: t.Enabled}
	}
	return writeJSON(w, http.StatusOK, map[string][]apiTarget{"targets": out})
}

// apiTargetAdd is POST /api/v1/projects/{slug}/targets/add: url, weight
// (default 1) and enabled (default true); a URL already listed is
// changed. It answers the project's targets.
func (h *Handler) apiTargetAdd(w http.ResponseWriter, r *http.Request) error {
	p, err := h.apiProject(r)
	if err != nil {
		return err
	}
	t := apiTarget{Weight: 1, Enabled: true}
	if err := h.apiDecode(w, r, &t); err != nil {
		return err
	}
	t.URL = strings.TrimSpace(t.URL)
	if err := projects.ValidTargetURL(t.URL); err != nil {
		if e := textRefusal(err); e != nil {
			return e
		}
		return errorf(http.StatusBadRequest, "invalid-target", "%v", err)
	}
	if t.Weight < 1 {
		return errorf(http.StatusBadRequest, "invalid-weight", "weight: a whole number, 1 or more")
	}
	if err := h.projects.AddTarget(r.Context(), p, projects.Target{URL: t.URL, Weight: t.Weight, Enabled: t.Enabled}); err != nil {
		return err
	}
	return h.writeTargets(w, r, p)
}

// targetRemove is the body of POST .../targets/remove.
type targetRemove struct {
	URL string `json:"url"`
}

func (t targetRemove) texts() []string { return []string{t.URL} }

// apiTargetRemove is POST /api/v1/projects/{slug}/targets/remove: url is
// no longer an upload target. It answers the project's targets.
func (h *Handler) apiTargetRemove(w http.ResponseWriter, r *http.Request) error {
	p, err := h.apiProject(r)
	if err != nil {
		return err
	}
	var t targetRemove
	if err := h.apiDecode(w, r, &t); err != nil {
		return err
	}
	found, err := h.projects.RemoveTarget(r.Context(), p, strings.TrimSpace(t.URL))
	if err != nil {
		return err
	}
	if !found {
		return errorf(http.StatusNotFound, "unknown-target", "no upload target %s", t.URL)
	}
	return h.writeTargets(w, r, p)
}
