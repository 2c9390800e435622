package handlers

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"tracker/audit"
	"tracker/refusal"
	"tracker/users"
	"tracker/views"
)

// adminLoginShow is GET /admin/login.
func (h *Handler) adminLoginShow(w http.ResponseWriter, r *http.Request) error {
	v := views.AdminLoginView{Next: safeNext(r.URL.Query().Get("next"))}
	return render(w, r, http.StatusOK, views.SignInLayout("Sign in", views.AdminLogin(v)))
}

// adminLogin is POST /admin/login: the form's username and password. The
// session token is renewed, so a token planted before the login is worth
// nothing after it.
func (h *Handler) adminLogin(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		return errorf(http.StatusBadRequest, "bad-form", "the form could not be read")
	}
	if err := validForm(r.PostForm); err != nil {
		return err
	}
	name, password := strings.TrimSpace(r.PostForm.Get("username")), r.PostForm.Get("password")
	v := views.AdminLoginView{Next: safeNext(r.PostForm.Get("next")), Username: name}
	u, err := h.users.Login(r.Context(), name, password, clientIP(r))
	switch {
	case errors.Is(err, users.ErrBadLogin):
		v.Error = "Wrong username or password."
		w.Header().Set("X-Tracker-Reason", "bad-login")
		return render(w, r, http.StatusUnauthorized, views.SignInLayout("Sign in", views.AdminLogin(v)))
	case errors.Is(err, users.ErrThrottled):
		wait := time.Duration(users.LoginThrottleSeconds) * time.Second
		if ref, ok := refusal.Of(err); ok && ref.RetryAfter > 0 {
			wait = ref.RetryAfter
		}
		secs := int((wait + time.Second - 1) / time.Second)
		setErrorHeaders(w, &Error{Reason: "login-throttled", RetryAfter: secs})
		v.Error = "Too many failed attempts. Try again in " + waitText(secs) + "."
		return render(w, r, http.StatusTooManyRequests, views.SignInLayout("Sign in", views.AdminLogin(v)))
	case err != nil:
		return err
	}
	sm := h.sessions.of(r)
	if err := sm.RenewToken(r.Context()); err != nil {
		return err
	}
	sm.Put(r.Context(), sessionUserKey, u.ID)
	if err := h.audit.Record(audit.NewContext(r.Context(), audit.Actor{UserID: u.ID, Username: u.Username, IP: clientIP(r)}), "login"); err != nil {
		return err
	}
	next := v.Next
	if next == "" {
		next = "/admin/"
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
	return nil
}

// adminLogout is POST /admin/logout.
func (h *Handler) adminLogout(w http.ResponseWriter, r *http.Request) error {
	if err := h.sessions.of(r).Destroy(r.Context()); err != nil {
		return err
	}
	http.Redirect(w, r, "/admin/login", http.StatusSeeOther)
	return nil
}

// waitText says a wait of secs seconds in words.
func waitText(secs int) string {
	if secs <= 90 {
		return strconv.Itoa(secs) + " seconds"
	}
	return strconv.Itoa((secs+59)/60) + " minutes"
}

// safeNext keeps a post-login address only when it is a path of the admin
// panel: never another site.
func safeNext(next string) string {
	if strings.HasPrefix(next, "/admin/") && !strings.HasPrefix(next, "//") && !strings.ContainsAny(next, "\\\r\n") {
		return next
	}
	return ""
}
