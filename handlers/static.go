package handlers

import (
	"io/fs"
	"net/http"
	"strings"

	"tracker/static"
)

// staticFiles serves the embedded assets. Pages load them by URLs with
// their fingerprint (static.URL): asked for by the current one, a file is
// kept by browsers for a year without asking, since another binary's file
// has another URL; asked for without it, or by an older one (a page loaded
// before the tracker was upgraded), it is kept an hour.
func staticFiles(fsys fs.FS) http.Handler {
	files := http.FileServerFS(fsys)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A file, or a 404 that says so: no listing of a folder, no bare
		// "404 page not found".
		name := strings.TrimPrefix(r.URL.Path, "/")
		if info, err := fs.Stat(fsys, name); !fs.ValidPath(name) || err != nil || info.IsDir() {
			writeError(w, errorf(http.StatusNotFound, "not-found", "no such file"))
			return
		}
		if v := r.URL.Query().Get("v"); v != "" && v == static.Version(name) {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "public, max-age=3600")
		}
		files.ServeHTTP(w, r)
	})
}

// rootFile serves one of the embedded files at the root of the site, where
// browsers and crawlers look for it without being told (/favicon.ico,
// /robots.txt).
func rootFile(fsys fs.FS, name string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		http.ServeFileFS(w, r, fsys, name)
	})
}
