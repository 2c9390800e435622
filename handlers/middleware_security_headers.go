package handlers

import "net/http"

// contentSecurityPolicy lets pages run only the tracker's own scripts
// (live.js, admin.js): no inline script, so HTML an admin pastes into a
// banner or a description cannot run code in a visitor's browser. Styles
// may be inline (the progress bars' widths); images may come from
// anywhere over HTTPS (projects' logos).
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data: https:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'"

// securityHeaders sets the headers every answer carries.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}
