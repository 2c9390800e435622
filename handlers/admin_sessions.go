package handlers

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/alexedwards/scs/pgxstore"
	"github.com/alexedwards/scs/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/users"
)

// Admin sessions: idle for longer than sessionIdle, or older than
// sessionLifetime, and the admin logs in again.
const (
	sessionIdle     = 2 * time.Hour
	sessionLifetime = 24 * time.Hour
	sessionUserKey  = "user_id"
	// sessionFlashKey holds the message of an admin's last action until
	// the next page shows it.
	sessionFlashKey = "flash"
	// sessionWarningKey holds what went wrong in an action that was done
	// all the same (lines of an upload refused), for the same page.
	sessionWarningKey = "warning"
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
		// The whole site: the public item lookups show a project's admins
		// what they keep from everyone else (viewerRuns). The cookie was
		// "tracker_session" on /admin/ before; a new name leaves a browser's
		// old cookie, which /admin/ pages would be sent first, unread.
		m.Cookie.Name = "tracker_admin"
		m.Cookie.HttpOnly = true
		m.Cookie.SameSite = http.SameSiteLaxMode
		m.Cookie.Path = "/"
		m.Cookie.Secure = secure
		return m
	}
	return sessions{plain: mk(false), secure: mk(true)}
}

// overTLS says whether the browser reached the tracker over TLS: directly,
// or through a trusted proxy that says so (realClient drops the header
// from anyone else).
func overTLS(r *http.Request) bool {
	return r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https"
}

func (s sessions) of(r *http.Request) *scs.SessionManager {
	if overTLS(r) {
		return s.secure
	}
	return s.plain
}

// onError sets how a request whose session cannot be loaded or saved
// (the database away) is answered: scs's own answer is a bare 500.
func (s sessions) onError(fn func(http.ResponseWriter, *http.Request, error)) {
	s.plain.ErrorFunc, s.secure.ErrorFunc = fn, fn
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

// viewerRuns says whether the request comes from a signed-in admin who
// may run the project. Public pages load no session; this reads one only
// when the request carries its cookie.
func (h *Handler) viewerRuns(r *http.Request, projectID int32) (bool, error) {
	sm := h.sessions.of(r)
	c, err := r.Cookie(sm.Cookie.Name)
	if err != nil || c.Value == "" {
		return false, nil
	}
	ctx, err := sm.Load(r.Context(), c.Value)
	if err != nil {
		return false, err
	}
	id := sm.GetInt32(ctx, sessionUserKey)
	if id == 0 {
		return false, nil
	}
	a, err := h.users.Account(ctx, id)
	if errors.Is(err, users.ErrNoUser) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return a.CanRun(projectID), nil
}

// endFor signs an account out everywhere but in the session of r (an
// admin who changes their own password stays signed in where they did it).
// Admin sessions are few: reading them all is cheap.
func (s sessions) endFor(r *http.Request, userID int32) error {
	current := s.of(r).Token(r.Context())
	return s.plain.Iterate(r.Context(), func(ctx context.Context) error {
		if s.plain.GetInt32(ctx, sessionUserKey) != userID || s.plain.Token(ctx) == current {
			return nil
		}
		return s.plain.Destroy(ctx)
	})
}
