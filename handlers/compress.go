package handlers

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"slices"
	"strconv"

	"github.com/klauspost/compress/gzhttp"
)

// compressed wraps the routes people read (the pages, their JSON, the
// static files): their answers go out in gzip to a client that takes it
// (Accept-Encoding), with Vary: Accept-Encoding, when they are 1 KiB or
// more and not compressed already (a handler that set Content-Encoding,
// such as writePage and writeDocument with their gzip made once, is
// passed through). Never the warriors', the grab scripts' (/now, written
// by hand on the connection; /dictionary) nor the live streams: their
// clients read them as they are, and a stream must go out as it is
// written. Compressed for each answer, at the fastest level: the
// processor is the warriors' first.
func compressed() func(http.Handler) http.Handler {
	wrap, err := gzhttp.NewWrapper(gzhttp.EnableZstd(false), gzhttp.MinSize(1024), gzhttp.CompressionLevel(gzip.BestSpeed))
	if err != nil {
		panic(err) // the options are constants
	}
	return func(h http.Handler) http.Handler { return wrap(h) }
}

// keptPage is a page rendered once for many readers, with its gzip made
// once too: compressing it for each of them would cost more than all the
// rest of the answer.
type keptPage struct{ body, gzipped []byte }

// keepPage is body with its gzip.
func keepPage(body []byte) (keptPage, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(body); err != nil {
		return keptPage{}, err
	}
	if err := zw.Close(); err != nil {
		return keptPage{}, err
	}
	return keptPage{body: body, gzipped: buf.Bytes()}, nil
}

// writePage answers with a kept page: its gzip to a client that takes it.
func writePage(w http.ResponseWriter, r *http.Request, p keptPage) error {
	h := w.Header()
	varyOn(h, "Accept-Encoding")
	if !acceptsGzip(r) {
		return writeHTML(w, http.StatusOK, p.body)
	}
	h.Set("Content-Encoding", "gzip")
	h.Set("Content-Length", strconv.Itoa(len(p.gzipped)))
	return writeHTML(w, http.StatusOK, p.gzipped)
}

// varyOn adds name to the answer's Vary header unless it is there.
func varyOn(h http.Header, name string) {
	if !slices.Contains(h.Values("Vary"), name) {
		h.Add("Vary", name)
	}
}
