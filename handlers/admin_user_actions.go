package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"tracker/projects"
	"tracker/refusal"
	"tracker/users"
	"tracker/views"
)

// The changes to one account, POST /admin/users/{id}/ACTION (global
// admins). The last global admin can be neither demoted nor deleted.

// adminUserPassword is .../password: a new password. The account's
// sessions end: whoever knew the old password is signed out.
func (h *Handler) adminUserPassword(w http.ResponseWriter, r *http.Request) error {
	return h.userAction(w, r, "password", func(ctx context.Context, u users.Account) error {
		if err := h.users.SetPassword(ctx, u, r.PostForm.Get("password")); err != nil {
			return err
		}
		return h.sessions.endFor(r, u.ID)
	})
}

// adminUserRole is .../role: admin or project_admin, once the admin saw
// what the account gains or loses and confirmed (confirmed=1).
func (h *Handler) adminUserRole(w http.ResponseWriter, r *http.Request) error {
	target, err := h.userOf(w, r)
	if err != nil {
		return err
	}
	role := r.PostForm.Get("role")
	if role == target.Role {
		return h.redirectWithFlash(w, r, "/admin/users", fmt.Sprintf("%s is a %s already: nothing changed.", target.Username, views.RoleName(role)))
	}
	if !confirmed(r) && (role == users.RoleAdmin || role == users.RoleProjectAdmin) {
		return h.askRole(w, r, target, role)
	}
	return h.userDone(w, r, target, "role", h.users.SetRole(r.Context(), target, role))
}

// askRole says what a change of role gives or takes away.
func (h *Handler) askRole(w http.ResponseWriter, r *http.Request, u users.Account, role string) error {
	c := confirmation{back: "/admin/users"}
	if role == users.RoleAdmin {
		c.question = fmt.Sprintf("This makes %s a global admin: %s may then run every project, create, change and delete accounts, "+
			"change the tracker's settings and read the whole audit log.", u.Username, u.Username)
		c.button = "Make " + u.Username + " a global admin"
	} else {
		ps, err := h.projects.List(r.Context())
		if err != nil {
			return err
		}
		var granted []string
		for _, p := range ps {
			if slices.Contains(u.Projects, p.ID) {
				granted = append(granted, p.Slug)
			}
		}
		runs := "no project until one is granted"
		if len(granted) > 0 {
			runs = fmt.Sprintf("only the %d projects granted (%s)", len(granted), strings.Join(granted, ", "))
		}
		c.question = fmt.Sprintf("This makes %s a project admin: %s may then run %s, and no longer manage accounts or the tracker's settings.",
			u.Username, u.Username, runs)
		if u.ID == account(r).ID {
			c.question += " That is you: the users page and the settings are closed to you once you go on."
		}
		c.button = "Make " + u.Username + " a project admin"
	}
	v := views.AdminConfirmView{}
	v.AdminPage = h.adminPageOf(r)
	return h.confirmPage(w, r, v, "Confirm · Users", c, true)
}

// adminUserGrant is .../grant: a project (its slug) the account may run.
func (h *Handler) adminUserGrant(w http.ResponseWriter, r *http.Request) error {
	return h.userAction(w, r, "grant", func(ctx context.Context, u users.Account) error {
		p, err := h.formProject(r)
		if err != nil {
			return err
		}
		return h.users.Grant(ctx, u, p.ID)
	})
}

// adminUserRevoke is .../revoke: a project the account may run no more.
func (h *Handler) adminUserRevoke(w http.ResponseWriter, r *http.Request) error {
	return h.userAction(w, r, "revoke", func(ctx context.Context, u users.Account) error {
		p, err := h.formProject(r)
		if err != nil {
			return err
		}
		return h.users.Revoke(ctx, u, p.ID)
	})
}

// adminUserDelete is .../delete, once "confirm" repeats the name.
func (h *Handler) adminUserDelete(w http.ResponseWriter, r *http.Request) error {
	return h.userAction(w, r, "delete", func(ctx context.Context, u users.Account) error {
		if r.PostForm.Get("confirm") != u.Username {
			return errorf(http.StatusBadRequest, "unconfirmed", "to delete %s, type the name to confirm", u.Username)
		}
		return h.users.Delete(ctx, u)
	})
}

// formProject is the project a form's "project" names.
func (h *Handler) formProject(r *http.Request) (projects.Project, error) {
	slug := strings.TrimSpace(r.PostForm.Get("project"))
	p, err := h.projects.Get(r.Context(), slug)
	if errors.Is(err, projects.ErrNotFound) {
		return p, errorf(http.StatusBadRequest, "unknown-project", "no project %q", slug)
	}
	return p, err
}

// userAction runs a change to the account of the path and shows the
// users again; a change refused shows why.
func (h *Handler) userAction(w http.ResponseWriter, r *http.Request, action string, fn func(context.Context, users.Account) error) error {
	target, err := h.userOf(w, r)
	if err != nil {
		return err
	}
	return h.userDone(w, r, target, action, fn(r.Context(), target))
}

// userOf is the account a change of the path is made to, with the form
// read: for global admins only.
func (h *Handler) userOf(w http.ResponseWriter, r *http.Request) (users.Account, error) {
	if err := globalOnly(r); err != nil {
		return users.Account{}, err
	}
	if err := parseSmallForm(w, r); err != nil {
		return users.Account{}, err
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 32)
	if err != nil {
		return users.Account{}, errorf(http.StatusNotFound, "unknown-user", "no such user")
	}
	target, err := h.users.Account(r.Context(), int32(id))
	if errors.Is(err, users.ErrNoUser) {
		return target, errorf(http.StatusNotFound, "unknown-user", "no such user")
	}
	return target, err
}

// userRefused is the refusal of a change to an account that ended with
// err, and whether it is one: the users page shows why.
func userRefused(err error) (formState, bool) {
	var e *Error
	switch {
	case errors.Is(err, users.ErrLastAdmin):
		return formState{status: http.StatusConflict, reason: "last-admin", err: err.Error()}, true
	case errors.Is(err, users.ErrExists):
		return refused("user-exists", err.Error()), true
	case refusal.IsInvalid(err):
		return refused("invalid-user", err.Error()), true
	case errors.As(err, &e) && e.Status < 500:
		return refusedBy(e), true
	}
	return formState{}, false
}

// userDone answers a change to target that ended with err: the users
// again, with what was done or why it was refused.
func (h *Handler) userDone(w http.ResponseWriter, r *http.Request, target users.Account, action string, err error) error {
	if st, ok := userRefused(err); ok {
		return h.renderUsers(w, r, st)
	}
	if err != nil {
		return err
	}
	return h.redirectWithFlash(w, r, "/admin/users", fmt.Sprintf("%s: %s done.", target.Username, action))
}
