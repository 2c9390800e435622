package handlers

import (
	"io/fs"
	"net/http"
	"strings"
)

// staticFiles serves the embedded assets. They change only with a new
// binary, so browsers may keep them for an hour without asking.
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
		w.Header().Set("Cache-Control", "public, max-age=3600")
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
