package handlers

import (
	"errors"
	"net/http"
	"strconv"

	"tracker/dictionaries"
	"tracker/projects"
)

// dictionaryShow answers GET /dictionary?project=SLUG[&id=ID]: a project's
// zstd dictionary as the grab scripts and the staging servers' packer want
// it (docs/PROTOCOL.md, "GET /dictionary"): {"id", "url", "sha256"}, url
// absolute, id a string. Without id, the newest: the scripts ask every 30
// minutes, download only when id changed, and name their files with it.
// With id, that dictionary: the packer reads the id back from a file's name
// and refuses an answer of another id, so an id the project never had is a
// 404, never the newest.
func (h *Handler) dictionaryShow(w http.ResponseWriter, r *http.Request) error {
	query := r.URL.Query()
	slug := query.Get("project")
	live, err := h.live.Get(r.Context(), slug)
	if errors.Is(err, projects.ErrNotFound) {
		return errorf(http.StatusNotFound, "unknown-project", "no project %q", slug)
	}
	if err != nil {
		return err
	}
	store := dictionaries.NewStore(h.pool)
	var d dictionaries.Dictionary
	var id string
	if asked, ok := query["id"]; ok {
		if !dictionaries.IDDigits(asked[0]) {
			return errorf(http.StatusBadRequest, "invalid-dictionary-id", "id %q: a dictionary's id is decimal digits", asked[0])
		}
		n, ok := dictionaries.ParseID(asked[0])
		if ok {
			d, err = store.Of(r.Context(), live.Project.ID, n)
		}
		if !ok || errors.Is(err, dictionaries.ErrNotFound) {
			return errorf(http.StatusNotFound, "unknown-dictionary", "project %q has no dictionary %s", slug, asked[0])
		}
		if err != nil {
			return err
		}
		// The id asked for: an old id (LegacyID) names the dictionary as
		// it did, and the packer compares the answer's with the one it
		// read.
		id = asked[0]
	} else {
		d, err = store.Latest(r.Context(), live.Project.ID)
		if errors.Is(err, dictionaries.ErrNone) {
			return errorf(http.StatusNotFound, "no-dictionary", "project %q has no dictionary", slug)
		}
		if err != nil {
			return err
		}
		id = strconv.FormatInt(d.ID, 10)
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, dictionaryJSON{ID: id, URL: h.dictionaryURL(w, r, d), SHA256: d.SHA256})
}

// dictionaryJSON is the answer of GET /dictionary. id is a string, as
// ArchiveTeam's dictionary service answered it: the packer compares it
// with the digits it read from a file's name, and a number is never equal
// to them.
type dictionaryJSON struct {
	ID     string `json:"id"`
	URL    string `json:"url"`
	SHA256 string `json:"sha256"`
}

// dictionaryURL is where a dictionary's bytes are served: its id and its
// token, which a hidden project's dictionary is served only with.
func (h *Handler) dictionaryURL(w http.ResponseWriter, r *http.Request, d dictionaries.Dictionary) string {
	return h.baseURL(w, r) + "/dictionary/" + strconv.FormatInt(d.ID, 10) + "-" + d.Token
}
