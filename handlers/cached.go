package handlers

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// writeCached answers with a JSON document that many clients poll: with an
// ETag (a 304 when the client has it), a short max-age, and gzip when the
// client takes it. A document that varies on the Host header (made with
// baseURL from the request) is for the client's own cache only.
func writeCached(w http.ResponseWriter, r *http.Request, body []byte, maxAge time.Duration) error {
	return writeCachedAs(w, r, body, maxAge, "application/json")
}

// writeCachedAs is writeCached for a document of another content type.
func writeCachedAs(w http.ResponseWriter, r *http.Request, body []byte, maxAge time.Duration, contentType string) error {
	return writeDocument(w, r, body, nil, maxAge, contentType)
}

// writeCachedGzipped is writeCached for a large document whose gzip was
// made once beforehand (gzipped): compressing it for every client would
// cost more than all the rest of the answer.
func writeCachedGzipped(w http.ResponseWriter, r *http.Request, body, gzipped []byte, maxAge time.Duration) error {
	return writeDocument(w, r, body, gzipped, maxAge, "application/json")
}

// writeDocument answers with body, or with gzipped (its gzip, compressed
// here when nil) to a client that takes gzip.
func writeDocument(w http.ResponseWriter, r *http.Request, body, gzipped []byte, maxAge time.Duration, contentType string) error {
	sum := sha256.Sum256(body)
	etag := `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`
	h := w.Header()
	h.Set("ETag", etag)
	scope := "public"
	if slices.Contains(h.Values("Vary"), "Host") {
		scope = "private"
	}
	h.Set("Cache-Control", scope+", max-age="+strconv.Itoa(int(maxAge/time.Second)))
	varyOn(h, "Accept-Encoding")
	h.Set("Content-Type", contentType)
	if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	if !acceptsGzip(r) || len(body) < 1024 {
		_, err := w.Write(body)
		return err
	}
	h.Set("Content-Encoding", "gzip")
	if gzipped != nil {
		h.Set("Content-Length", strconv.Itoa(len(gzipped)))
		_, err := w.Write(gzipped)
		return err
	}
	zw := gzip.NewWriter(w)
	if _, err := zw.Write(body); err != nil {
		return err
	}
	return zw.Close()
}

func acceptsGzip(r *http.Request) bool {
	for part := range strings.SplitSeq(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.ReplaceAll(q, " ", "") != "q=0" {
			return true
		}
	}
	return false
}
