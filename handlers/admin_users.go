package handlers

import (
	"net/http"
	"strings"

	"tracker/views"
)

// adminUsers is GET /admin/users (global admins): every account.
func (h *Handler) adminUsers(w http.ResponseWriter, r *http.Request) error {
	if err := globalOnly(r); err != nil {
		return err
	}
	return h.renderUsers(w, r, shown())
}

func (h *Handler) renderUsers(w http.ResponseWriter, r *http.Request, st formState) error {
	ctx := r.Context()
	accounts, err := h.adm.users.List(ctx)
	if err != nil {
		return err
	}
	ps, err := h.adm.projects.List(ctx)
	if err != nil {
		return err
	}
	v := views.AdminUsersView{AdminPage: h.adminPageOf(r)}
	if st.err != "" {
		v.Flash, v.Error = "", st.err
	}
	slugs := map[int32]string{}
	for _, p := range ps {
		slugs[p.ID] = p.Slug
		v.Slugs = append(v.Slugs, p.Slug)
	}
	for _, a := range accounts {
		row := views.AdminUserRow{ID: a.ID, Username: a.Username, Role: a.Role, CreatedAt: a.CreatedAt}
		for _, id := range a.Projects {
			row.Projects = append(row.Projects, slugs[id])
		}
		v.Users = append(v.Users, row)
	}
	return renderForm(w, r, st, views.AdminLayout("Users", views.AdminUsers(v)))
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
	if st, ok := userRefused(err); ok {
		return h.renderUsers(w, r, st)
	}
	if err != nil {
		return err
	}
	return h.redirectWithFlash(w, r, "/admin/users", "Created "+u.Username+".")
}
