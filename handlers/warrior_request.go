package handlers

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"tracker/items"
	"tracker/projects"
)

// maxWarriorBody bounds the JSON body of request and done. A done of a
// multi=100 batch of long URLs stays far below it.
const maxWarriorBody = 4 << 20

// requestBody is what a warrior sends to ask for work.
type requestBody struct {
	Downloader string         `json:"downloader"`
	APIVersion flexibleString `json:"api_version"`
	Version    flexibleString `json:"version"`
}

// warriorRequest hands out an item, or with multi={N} up to N items joined
// by NUL, as {"item_name": "..."}; 404 with an empty body when there is none.
func (h *Handler) warriorRequest(w http.ResponseWriter, r *http.Request) error {
	p, err := h.project(r)
	if err != nil {
		return err
	}
	var body requestBody
	if err := decodeJSON(w, r, maxWarriorBody, &body); err != nil {
		return err
	}
	if err := items.ValidNick(body.Downloader); err != nil {
		return errorf(http.StatusBadRequest, "invalid-downloader", "%v", err)
	}
	want := 1
	if n, _ := strconv.Atoi(r.PathValue("multi")); n > 0 {
		want = min(n, max(p.Config.MaxMulti, 1))
	}
	names, err := h.items.Claim(r.Context(), p, items.ClaimRequest{
		Downloader: body.Downloader,
		Version:    string(body.Version),
		IP:         clientIP(r),
		Max:        want,
	})
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return &Error{Status: http.StatusNotFound, Reason: "no-items"}
	}
	return writeJSON(w, http.StatusOK, map[string]string{"item_name": strings.Join(names, "\x00")})
}

// project loads the project the path names.
func (h *Handler) project(r *http.Request) (projects.Project, error) {
	slug := r.PathValue("project")
	p, err := h.projects.Get(r.Context(), slug)
	if errors.Is(err, projects.ErrNotFound) {
		return p, errorf(http.StatusNotFound, "unknown-project", "no project %q", slug)
	}
	return p, err
}
