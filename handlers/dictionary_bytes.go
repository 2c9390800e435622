package handlers

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"tracker/dictionaries"
	"tracker/projects"
)

// dictionaryBytes answers GET /dictionary/{id}-{token} (and, for a project
// that is not hidden, GET /dictionary/{id}): a dictionary's bytes exactly
// as uploaded, raw or zstd-compressed (the scripts check their SHA-256,
// then decompress a zstd frame themselves). A dictionary never changes
// under its id, so it may be cached for good.
//
// Ids are Unix seconds (and old ones counted up): a hidden project's
// dictionaries are served only with their token, which only
// GET /dictionary?project=SLUG hands out (to the scripts, which know the
// slug), so they cannot be found by guessing ids. A wrong token, or none,
// is answered as an id that does not exist. A dictionary installed before
// ids were Unix seconds is served under its old id too, as the addresses
// handed out then name it.
//
// Everything but the bytes comes from the row's head (its checksum, its
// length): a revalidation (304) or a HEAD never reads the dictionary.
func (h *Handler) dictionaryBytes(w http.ResponseWriter, r *http.Request) error {
	ref := r.PathValue("id")
	idText, token, withToken := strings.Cut(ref, "-")
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || id < 1 {
		return errorf(http.StatusNotFound, "not-found", "no dictionary %q", ref)
	}
	notFound := errorf(http.StatusNotFound, "not-found", "no dictionary %q", ref)
	store := dictionaries.NewStore(h.pool)
	d, slug, err := store.Meta(r.Context(), id)
	if errors.Is(err, dictionaries.ErrNotFound) {
		return notFound
	}
	if err != nil {
		return err
	}
	live, err := h.live.Get(r.Context(), slug)
	if errors.Is(err, projects.ErrNotFound) {
		return notFound // being deleted
	}
	if err != nil {
		return err
	}
	switch {
	case withToken && subtle.ConstantTimeCompare([]byte(token), []byte(d.Token)) != 1:
		return notFound
	case !withToken && live.Project.Config.Hidden:
		return notFound
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
	hdr.Set("Content-Length", strconv.Itoa(d.Size))
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return nil
	}
	b, err := store.Bytes(r.Context(), d.ID)
	if errors.Is(err, dictionaries.ErrNotFound) {
		hdr.Del("Content-Length")
		return notFound // deleted with its project meanwhile
	}
	if err != nil {
		hdr.Del("Content-Length")
		return err
	}
	w.WriteHeader(http.StatusOK)
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
