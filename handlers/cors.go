package handlers

import "net/http"

// anyOrigin marks the answers of next, errors too, readable by pages of
// any other site (Access-Control-Allow-Origin: *): public data that
// dashboards and bots read from a browser, such as every project's
// stats.json. Browsers send no cookie with such a read and show it to no
// page when one was sent, so a signed-in admin's view never leaks; the
// admin panel and the routes that change something never carry it.
func anyOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		next.ServeHTTP(w, r)
	})
}
