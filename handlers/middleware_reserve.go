package handlers

import (
	"net/http"
	"strings"

	"tracker/conns"
)

// reserveForWarriors answers 503 server-full, and closes the connection, to
// a request other than a warrior's or a grab script's that came on a
// connection let in on the reserve while the server is still that full
// (conns.Limits.Reserve): when connections run short, the pages wait and
// the work goes on.
func reserveForWarriors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c := conns.Of(r.Context()); c != nil && c.Reserved() && !forWarriors(r) {
			w.Header().Set("Connection", "close")
			writeErrorFor(w, r, &Error{Status: http.StatusServiceUnavailable, Reason: "server-full", RetryAfter: 10,
				Msg: "the server holds as many connections as it can; try again shortly"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// forWarriors says whether r is one of the calls warriors and grab scripts
// make: the warrior protocol, backfeed, the warrior HQ, the clock, the
// dictionaries, the network check warrior4 makes at boot, and the health
// check load balancers ask. The admin API is not among them: an operator's
// script waits with the pages rather than take the warriors' last
// connections.
func forWarriors(r *http.Request) bool {
	path := r.URL.Path
	if p, shape := parseWarriorPath(r.URL.EscapedPath()); shape != notWarriorPath && r.Method == http.MethodPost {
		switch p.action { // the warrior routes of Routes
		case "request", "done", "done+request", "release", "upload", "uploaded":
			return true
		}
	}
	return strings.HasPrefix(path, "/backfeed/") || path == "/api/register.json" || path == "/api/update.json" ||
		path == "/now" || path == NetworkCheckPath || path == "/dictionary" || strings.HasPrefix(path, "/dictionary/") || path == "/healthz"
}
