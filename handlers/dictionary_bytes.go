package handlers

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"tracker/dictionaries"
)

// dictionaryBytes answers GET /dictionary/{id}: a dictionary's bytes exactly
// as uploaded, raw or zstd-compressed (the scripts check their SHA-256, then
// decompress a zstd frame themselves). A dictionary never changes under its
// id, so it may be cached for good.
func (h *Handler) dictionaryBytes(w http.ResponseWriter, r *http.Request) error {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id < 1 {
		return errorf(http.StatusNotFound, "not-found", "no dictionary %q", r.PathValue("id"))
	}
	d, b, err := dictionaries.NewStore(h.pool).Bytes(r.Context(), id)
	if errors.Is(err, dictionaries.ErrNotFound) {
		return errorf(http.StatusNotFound, "not-found", "no dictionary %d", id)
	}
	if err != nil {
		return err
	}
	etag := `"` + d.SHA256 + `"`
	hdr := w.Header()
	hdr.Set("ETag", etag)
	hdr.Set("Cache-Control", "public, max-age=31536000, immutable")
	hdr.Set("Content-Type", "application/octet-stream")
	if match := r.Header.Get("If-None-Match"); match != "" && (match == "*" || containsETag(match, etag)) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	hdr.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	_, err = w.Write(b)
	return err
}

// containsETag says whether an If-None-Match list names etag.
func containsETag(list, etag string) bool {
	for tag := range strings.SplitSeq(list, ",") {
		if tag = strings.TrimSpace(tag); tag == etag || tag == "W/"+etag {
			return true
		}
	}
	return false
}
