package handlers

import (
	"io"
	"net/http"

	"tracker/dictionaries"
)

// apiDictionaryAdd is POST /api/v1/projects/{slug}/dictionaries: the body
// is a zstd dictionary (raw, or zstd-compressed as the grab scripts take
// it), installed as the project's served dictionary as the panel installs
// one: the dictionary trainer's hourly step.
func (h *Handler) apiDictionaryAdd(w http.ResponseWriter, r *http.Request) error {
	p, err := h.apiProject(r)
	if err != nil {
		return err
	}
	release, err := h.bodies.admin.reserve(r, dictionaries.MaxSize)
	if err != nil {
		return err
	}
	defer release()
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, dictionaries.MaxSize))
	if err != nil {
		if e := bodyRefusal(err); e != nil {
			e.Reason = cmpReason(e, "invalid-dictionary")
			return e
		}
		return err
	}
	d, err := dictionaries.NewStore(h.pool).Add(r.Context(), p.ID, b, account(r).Username)
	if err != nil {
		return err // a refusal (invalid-dictionary) is answered as such
	}
	// The id's type is the dictionaries package's: the answer carries it
	// as that package gives it.
	return writeJSON(w, http.StatusCreated, map[string]any{"project": p.Slug, "id": d.ID, "size": d.Size, "sha256": d.SHA256})
}

// cmpReason keeps a body refusal's reason, but for one past the size a
// dictionary may have, which is the dictionary's refusal.
func cmpReason(e *Error, tooLarge string) string {
	if e.Status == http.StatusRequestEntityTooLarge {
		return tooLarge
	}
	return e.Reason
}
