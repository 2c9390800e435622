package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"tracker/projects"
	"tracker/users"
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

// adminUserRole is .../role: admin or project_admin.
func (h *Handler) adminUserRole(w http.ResponseWriter, r *http.Request) error {
	return h.userAction(w, r, "role", func(ctx context.Context, u users.Account) error {
		return h.users.SetRole(ctx, u, r.PostForm.Get("role"))
	})
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
			return &users.InvalidError{Err: fmt.Errorf("to delete %s, type the name to confirm", u.Username)}
		}
		return h.users.Delete(ctx, u)
	})
}

// formProject is the project a form's "project" names.
func (h *Handler) formProject(r *http.Request) (projects.Project, error) {
	slug := strings.TrimSpace(r.PostForm.Get("project"))
	p, err := h.projects.Get(r.Context(), slug)
	if errors.Is(err, projects.ErrNotFound) {
		return p, &users.InvalidError{Err: fmt.Errorf("no project %q", slug)}
	}
	return p, err
}

// userAction runs a change to the account of the path and shows the
// users again; a change refused shows why.
func (h *Handler) userAction(w http.ResponseWriter, r *http.Request, action string, fn func(context.Context, users.Account) error) error {
	if err := globalOnly(r); err != nil {
		return err
	}
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	ctx := r.Context()
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 32)
	if err != nil {
		return errorf(http.StatusNotFound, "unknown-user", "no such user")
	}
	target, err := h.users.Account(ctx, int32(id))
	if errors.Is(err, users.ErrNoUser) {
		return errorf(http.StatusNotFound, "unknown-user", "no such user")
	}
	if err != nil {
		return err
	}
	err = fn(ctx, target)
	if errors.Is(err, users.ErrLastAdmin) {
		return h.renderUsers(w, r, formState{status: http.StatusConflict, err: err.Error()})
	}
	var bad *users.InvalidError
	if errors.As(err, &bad) {
		return h.renderUsers(w, r, refused(err.Error()))
	}
	if err != nil {
		return err
	}
	return h.redirectWithFlash(w, r, "/admin/users", fmt.Sprintf("%s: %s done.", target.Username, action))
}
