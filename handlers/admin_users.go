package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"tracker/db"
	"tracker/projects"
	"tracker/users"
	"tracker/views"
)

// adminUsers is GET /admin/users (global admins): every account.
func (h *Handler) adminUsers(w http.ResponseWriter, r *http.Request) error {
	if err := globalOnly(r); err != nil {
		return err
	}
	return h.renderAdminUsers(w, r, http.StatusOK, r.URL.Query().Get("flash"), "")
}

func (h *Handler) renderAdminUsers(w http.ResponseWriter, r *http.Request, status int, flash, formErr string) error {
	ctx := r.Context()
	accounts, err := h.users.List(ctx)
	if err != nil {
		return err
	}
	ps, err := h.projects.List(ctx)
	if err != nil {
		return err
	}
	slugs := map[int32]string{}
	for _, p := range ps {
		slugs[p.ID] = p.Slug
	}
	v := views.AdminUsersView{Username: account(r).Username, Flash: flash, Error: formErr}
	for _, a := range accounts {
		row := views.AdminUserRow{ID: a.ID, Username: a.Username, Role: a.Role, CreatedAt: a.CreatedAt}
		for _, id := range a.Projects {
			row.Projects = append(row.Projects, slugs[id])
		}
		v.Users = append(v.Users, row)
	}
	return render(w, r, status, views.Layout("Users", views.AdminUsers(v)))
}

// adminUserCreate is POST /admin/users: username, password, role.
func (h *Handler) adminUserCreate(w http.ResponseWriter, r *http.Request) error {
	if err := globalOnly(r); err != nil {
		return err
	}
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	name, role := strings.TrimSpace(r.PostForm.Get("username")), r.PostForm.Get("role")
	u, err := h.users.Create(r.Context(), name, r.PostForm.Get("password"), role)
	if err != nil {
		return h.renderAdminUsers(w, r, http.StatusBadRequest, "", err.Error())
	}
	if err := record(r, db.New(h.pool), "user.create", 0, map[string]any{"user": u.Username, "role": role}); err != nil {
		return err
	}
	http.Redirect(w, r, "/admin/users?flash="+url.QueryEscape("Created "+u.Username+"."), http.StatusSeeOther)
	return nil
}

// adminUserChange is POST /admin/users/{id}/{action}: password (reset),
// role, grant and revoke (a project's slug), delete. The last global admin
// can be neither demoted nor deleted.
func (h *Handler) adminUserChange(w http.ResponseWriter, r *http.Request) error {
	if err := globalOnly(r); err != nil {
		return err
	}
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	ctx := r.Context()
	id64, err := strconv.ParseInt(r.PathValue("id"), 10, 32)
	if err != nil {
		return errorf(http.StatusNotFound, "unknown-user", "no such user")
	}
	target, err := h.users.Account(ctx, int32(id64))
	if errors.Is(err, users.ErrNoUser) {
		return errorf(http.StatusNotFound, "unknown-user", "no such user")
	}
	if err != nil {
		return err
	}
	detail := map[string]any{"user": target.Username}
	project := func() (projects.Project, error) {
		p, err := h.projects.Get(ctx, strings.TrimSpace(r.PostForm.Get("project")))
		if errors.Is(err, projects.ErrNotFound) {
			return p, errorf(http.StatusBadRequest, "unknown-project", "no project %q", r.PostForm.Get("project"))
		}
		detail["project"] = p.Slug
		return p, err
	}
	action := r.PathValue("action")
	switch action {
	case "password":
		err = h.users.SetPassword(ctx, target.ID, r.PostForm.Get("password"))
	case "role":
		detail["role"] = r.PostForm.Get("role")
		err = h.users.SetRole(ctx, h.pool, target.ID, r.PostForm.Get("role"))
	case "grant", "revoke":
		var p projects.Project
		if p, err = project(); err != nil {
			return err
		}
		if action == "grant" {
			err = h.users.Grant(ctx, target.ID, p.ID)
		} else {
			err = h.users.Revoke(ctx, target.ID, p.ID)
		}
	case "delete":
		if r.PostForm.Get("confirm") != target.Username {
			return h.renderAdminUsers(w, r, http.StatusBadRequest, "", "To delete "+target.Username+", type the name to confirm.")
		}
		err = h.users.Delete(ctx, h.pool, target.ID)
	default:
		return errorf(http.StatusNotFound, "not-found", "no such action")
	}
	if errors.Is(err, users.ErrLastAdmin) {
		return h.renderAdminUsers(w, r, http.StatusConflict, "", err.Error())
	}
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return err
		}
		return h.renderAdminUsers(w, r, http.StatusBadRequest, "", err.Error())
	}
	if err := record(r, db.New(h.pool), "user."+action, 0, detail); err != nil {
		return err
	}
	http.Redirect(w, r, "/admin/users?flash="+url.QueryEscape(fmt.Sprintf("%s: %s done.", target.Username, action)), http.StatusSeeOther)
	return nil
}
