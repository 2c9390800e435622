package handlers

import (
	"errors"
	"net/http"
	"strconv"

	"tracker/dictionaries"
	"tracker/projects"
)

// dictionaryShow answers GET /dictionary?project=SLUG: the project's newest
// zstd dictionary as the grab scripts want it (docs/PROTOCOL.md,
// "GET /dictionary"): {"id", "url", "sha256"}, url absolute. The scripts ask
// every 30 minutes and download only when id changed.
func (h *Handler) dictionaryShow(w http.ResponseWriter, r *http.Request) error {
	slug := r.URL.Query().Get("project")
	live, err := h.live.Get(r.Context(), slug)
	if errors.Is(err, projects.ErrNotFound) {
		return errorf(http.StatusNotFound, "unknown-project", "no project %q", slug)
	}
	if err != nil {
		return err
	}
	d, err := dictionaries.NewStore(h.pool).Latest(r.Context(), live.Project.ID)
	if errors.Is(err, dictionaries.ErrNone) {
		return errorf(http.StatusNotFound, "no-dictionary", "project %q has no dictionary", slug)
	}
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, dictionaryJSON{ID: d.ID, URL: h.dictionaryURL(w, r, d), SHA256: d.SHA256})
}

// dictionaryJSON is the answer of GET /dictionary.
type dictionaryJSON struct {
	ID     int64  `json:"id"`
	URL    string `json:"url"`
	SHA256 string `json:"sha256"`
}

// dictionaryURL is where a dictionary's bytes are served: its id and its
// token, which a hidden project's dictionary is served only with.
func (h *Handler) dictionaryURL(w http.ResponseWriter, r *http.Request, d dictionaries.Dictionary) string {
	return h.baseURL(w, r) + "/dictionary/" + strconv.FormatInt(d.ID, 10) + "-" + d.Token
}
