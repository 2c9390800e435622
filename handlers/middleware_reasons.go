package handlers

import (
	"net/http"
	"strconv"
	"strings"
)

// withReasons makes sure every refusal says why. The tracker's own name
// theirs (errorf); an answer of 400 or more written without one, by a
// library's handler (the file server's 412 and 416, promhttp's), gets
// the reason of its status (statusReason): not-found, bad-request.
func withReasons(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(reasonWriter{w, statusReason}, r)
	})
}

// reasonWriter gives an answer of 400 or more written without
// X-Tracker-Reason the reason reason makes of its status. It unwraps for
// http.ResponseController and for the websocket's hijacking.
type reasonWriter struct {
	http.ResponseWriter
	reason func(status int) string
}

func (w reasonWriter) WriteHeader(status int) {
	if status >= 400 && w.Header().Get("X-Tracker-Reason") == "" {
		w.Header().Set("X-Tracker-Reason", w.reason(status))
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w reasonWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// statusReason is the reason of an answer that has no other: its status's
// name in the form of the others ("Not Found": not-found), internal-error
// for a 500 as the tracker's own, status-N for a status without a name.
func statusReason(status int) string {
	if status == http.StatusInternalServerError {
		return "internal-error"
	}
	text := http.StatusText(status)
	if text == "" {
		return "status-" + strconv.Itoa(status)
	}
	return strings.Map(func(c rune) rune {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			return c
		case c >= 'A' && c <= 'Z':
			return c - 'A' + 'a'
		case c == ' ' || c == '-':
			return '-'
		}
		return -1
	}, text)
}
