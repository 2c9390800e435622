package handlers

import (
	"errors"
	"io"
	"net/http"
	"strings"

	"tracker/items"
)

// limitBodies caps the body of every request at the largest any route
// takes (a backfeed post); the admin panel and the admin API, which take
// item files of any size, set their own limits. It wraps the server's own writer, outside the
// metrics' recorder: a limit hit through the recorder would not reach the
// server, which would then cut the connection instead of closing it after
// the answer.
//
// It also marks every failure reading a body as the client's (bodyError):
// a body that ends before its Content-Length, or stops coming, fails with
// the errors a database connection going down fails with, and must not be
// answered as an outage.
func limitBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/admin/") && !isAPIPath(r.URL.Path) {
			r.Body = http.MaxBytesReader(w, r.Body, items.MaxBackfeedBody)
		}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = clientBody{r.Body}
		}
		next.ServeHTTP(w, r)
	})
}

// clientBody wraps the errors of a request body, but its end, as
// bodyError.
type clientBody struct{ io.ReadCloser }

func (b clientBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		err = &bodyError{err}
	}
	return n, err
}
