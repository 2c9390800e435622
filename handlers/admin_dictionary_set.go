package handlers

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"tracker/dictionaries"
	"tracker/refusal"
)

// adminDictionarySet is POST /admin/projects/{slug}/dictionary, a multipart
// form with the dictionary in "file" (raw, or zstd-compressed as the scripts
// accept it). It becomes the project's served dictionary under a new id;
// the old ones stay listed.
func (h *Handler) adminDictionarySet(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProject(r)
	if err != nil {
		return err
	}
	// The file plus the form's overhead, read once it has its share of
	// the admin uploads' budget.
	const limit = dictionaries.MaxSize + 64<<10
	release, err := h.bodies.admin.reserve(r, limit)
	if err != nil {
		return err
	}
	defer release()
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	if err := r.ParseMultipartForm(limit); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return h.refuseDictionary(w, r, fmt.Sprintf("Dictionary: larger than %d bytes.", dictionaries.MaxSize))
		}
		return errorf(http.StatusBadRequest, "bad-form", "send the dictionary as multipart/form-data")
	}
	defer r.MultipartForm.RemoveAll()
	f, _, err := r.FormFile("file")
	if err != nil {
		return h.refuseDictionary(w, r, "Dictionary: choose a file.")
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, dictionaries.MaxSize+1))
	if err != nil {
		return err
	}
	d, err := dictionaries.NewStore(h.pool).Add(r.Context(), p.ID, b, account(r).Username)
	if refusal.IsInvalid(err) {
		return h.refuseDictionary(w, r, "Dictionary: "+err.Error()+".")
	}
	if err != nil {
		return err
	}
	return h.toSection(w, r, p, "feeds", fmt.Sprintf("Dictionary %d installed (%d bytes); grab scripts fetch it within 30 minutes.", d.ID, d.Size))
}

// refuseDictionary shows the queues section again with why the upload was
// refused, under the reason invalid-dictionary.
func (h *Handler) refuseDictionary(w http.ResponseWriter, r *http.Request, msg string) error {
	p, err := h.adminProject(r)
	if err != nil {
		return err
	}
	return h.renderFeeds(w, r, p, refused("invalid-dictionary", msg))
}
