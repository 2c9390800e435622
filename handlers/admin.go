package handlers

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/alexedwards/scs/pgxstore"
	"github.com/alexedwards/scs/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/audit"
	"tracker/db"
	"tracker/users"
)

// Admin sessions: idle for longer than sessionIdle, or older than
// sessionLifetime, and the admin logs in again.
const (
	sessionIdle     = 2 * time.Hour
	sessionLifetime = 24 * time.Hour
	sessionUserKey  = "user_id"
)

// sessions are the admin panel's sessions, kept in PostgreSQL (any tracker
// process serves any admin). Two managers share the store and differ in
// the cookie's Secure flag: a request over TLS, or through a proxy that
// says it came over TLS, gets a Secure cookie.
type sessions struct {
	plain, secure *scs.SessionManager
}

func newSessions(pool *pgxpool.Pool) sessions {
	// No cleanup goroutine of its own: the housekeeping job drops expired
	// sessions.
	store := pgxstore.NewWithCleanupInterval(pool, 0)
	mk := func(secure bool) *scs.SessionManager {
		m := scs.New()
		m.Store = store
		m.IdleTimeout = sessionIdle
		m.Lifetime = sessionLifetime
		m.Cookie.Name = "tracker_session"
		m.Cookie.HttpOnly = true
		m.Cookie.SameSite = http.SameSiteLaxMode
		m.Cookie.Path = "/admin/"
		m.Cookie.Secure = secure
		return m
	}
	return sessions{plain: mk(false), secure: mk(true)}
}

func overTLS(r *http.Request) bool {
	return r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https"
}

func (s sessions) of(r *http.Request) *scs.SessionManager {
	if overTLS(r) {
		return s.secure
	}
	return s.plain
}

// loadAndSave loads the request's session and saves it after the handler.
func (s sessions) loadAndSave(next http.Handler) http.Handler {
	plain, secure := s.plain.LoadAndSave(next), s.secure.LoadAndSave(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if overTLS(r) {
			secure.ServeHTTP(w, r)
			return
		}
		plain.ServeHTTP(w, r)
	})
}

type accountKey struct{}

// account is the signed-in admin of a request that went through admin.
func account(r *http.Request) users.Account {
	a, _ := r.Context().Value(accountKey{}).(users.Account)
	return a
}

// admin adapts a handler of the admin panel: a request without a signed-in
// account is sent to the login page (a GET) or refused (anything else);
// cross-origin state changes are refused (http.CrossOriginProtection); then
// the handler runs with the account in its context.
func (h *Handler) admin(fn func(http.ResponseWriter, *http.Request) error) http.Handler {
	page := h.page(fn)
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
		page.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), accountKey{}, a)))
	})
	return h.sessions.loadAndSave(h.csrf.Handler(signedIn))
}

// adminPublic adapts the admin routes open to anyone (the login form):
// sessions and cross-origin protection, no account needed.
func (h *Handler) adminPublic(fn func(http.ResponseWriter, *http.Request) error) http.Handler {
	return h.sessions.loadAndSave(h.csrf.Handler(h.page(fn)))
}

func (h *Handler) toLogin(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(w, errorf(http.StatusUnauthorized, "not-signed-in", "sign in at /admin/login first"))
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

// record writes an admin action to the audit log through q.
func record(r *http.Request, q *db.Queries, action string, projectID int32, detail map[string]any) error {
	a := account(r)
	return audit.Record(r.Context(), q, audit.Entry{
		UserID: a.ID, Username: a.Username, IP: clientIP(r), Action: action, ProjectID: projectID, Detail: detail,
	})
}
