package handlers

import (
	"net/http"
	"strings"

	"tracker/items"
)

// limitBodies caps the body of every request at the largest any route
// takes (a backfeed post); the admin panel, which takes item files of any
// size, sets its own limits. It wraps the server's own writer, outside the
// metrics' recorder: a limit hit through the recorder would not reach the
// server, which would then cut the connection instead of closing it after
// the answer.
func limitBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/admin/") {
			r.Body = http.MaxBytesReader(w, r.Body, items.MaxBackfeedBody)
		}
		next.ServeHTTP(w, r)
	})
}
