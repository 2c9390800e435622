package handlers

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"tracker/audit"
	"tracker/users"
)

type accountKey struct{}

// account is the signed-in admin of a request that went through admin.
func account(r *http.Request) users.Account {
	a, _ := r.Context().Value(accountKey{}).(users.Account)
	return a
}

// admin adapts a handler of the admin panel: a request without a signed-in
// account is sent to the login page (a GET) or refused (anything else);
// cross-origin state changes are refused (http.CrossOriginProtection); then
// the handler runs with the account in its context, a page in its turn of
// the admin reads (adminTurn).
func (h *Handler) admin(fn func(http.ResponseWriter, *http.Request) error) http.Handler {
	page := h.adminTurn(h.page(fn))
	signedIn := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := h.sessions.of(r).GetInt32(r.Context(), sessionUserKey)
		if id == 0 {
			h.toLogin(w, r)
			return
		}
		a, err := h.users.Account(r.Context(), id)
		if errors.Is(err, users.ErrNoUser) {
			// Deleted while signed in.
			h.sessions.of(r).Destroy(r.Context())
			h.toLogin(w, r)
			return
		}
		if err != nil {
			h.page(func(http.ResponseWriter, *http.Request) error { return err }).ServeHTTP(w, r)
			return
		}
		// The packages that make the changes record them in the admin's
		// name, in the transaction of the change.
		ctx := audit.NewContext(context.WithValue(r.Context(), accountKey{}, a),
			audit.Actor{UserID: a.ID, Username: a.Username, IP: clientIP(r)})
		page.ServeHTTP(w, r.WithContext(ctx))
	})
	return adminHeaders(h.sessions.loadAndSave(h.csrf.Handler(signedIn)))
}

// adminPublic adapts the admin routes open to anyone (the login form):
// sessions and cross-origin protection, no account needed.
func (h *Handler) adminPublic(fn func(http.ResponseWriter, *http.Request) error) http.Handler {
	return adminHeaders(h.sessions.loadAndSave(h.csrf.Handler(h.page(fn))))
}

// adminHeaders keeps the panel's pages out of every cache (they show what
// only an admin may see) and out of frames on other sites (no clickjacking
// of its buttons).
func adminHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Security-Policy", contentSecurityPolicy+"; frame-ancestors 'none'")
		w.Header().Set("X-Frame-Options", "DENY")
		next.ServeHTTP(w, r)
	})
}

func (h *Handler) toLogin(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.serveError(w, r, errorf(http.StatusUnauthorized, "not-signed-in", "sign in at /admin/login first"), false)
		return
	}
	http.Redirect(w, r, "/admin/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
}

// canRun refuses an admin the project unless they may run it.
func canRun(r *http.Request, projectID int32) error {
	if !account(r).CanRun(projectID) {
		return errorf(http.StatusForbidden, "forbidden", "you do not run this project")
	}
	return nil
}

// globalOnly refuses project admins.
func globalOnly(r *http.Request) error {
	if !account(r).IsAdmin() {
		return errorf(http.StatusForbidden, "forbidden", "only global admins may do this")
	}
	return nil
}
