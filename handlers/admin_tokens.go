package handlers

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"tracker/projects"
	"tracker/refusal"
	"tracker/users"
	"tracker/views"
)

// adminTokens is GET /admin/account/tokens: the signed-in account's API
// tokens, and the form that makes one.
func (h *Handler) adminTokens(w http.ResponseWriter, r *http.Request) error {
	return h.renderTokens(w, r, shown(), views.AdminTokensView{})
}

// renderTokens shows the account's tokens over v's form values (and the
// secret of the token just made, if any).
func (h *Handler) renderTokens(w http.ResponseWriter, r *http.Request, st formState, v views.AdminTokensView) error {
	ctx, a := r.Context(), account(r)
	ts, err := h.adm.users.Tokens(ctx, a)
	if err != nil {
		return err
	}
	ps, err := h.adm.projects.List(ctx)
	if err != nil {
		return err
	}
	slugs := map[int32]string{}
	for _, p := range ps {
		slugs[p.ID] = p.Slug
		if a.CanRun(p.ID) {
			v.Slugs = append(v.Slugs, p.Slug)
		}
	}
	v.AdminPage = h.adminPageOf(r)
	if st.err != "" {
		v.Flash, v.Error = "", st.err
	}
	for _, t := range ts {
		row := views.AdminTokenRow{ID: t.ID, Name: t.Name, Scope: t.Scope, Created: t.CreatedAt, LastUsed: t.LastUsedAt, Revoked: t.RevokedAt}
		for _, id := range t.Projects {
			row.Projects = append(row.Projects, cmpSlug(slugs[id], id))
		}
		v.Tokens = append(v.Tokens, row)
	}
	return renderForm(w, r, st, views.AdminLayout("API tokens", views.AdminTokens(v)))
}

// cmpSlug is a project's slug, or its id when it is gone.
func cmpSlug(slug string, id int32) string {
	if slug == "" {
		return "#" + strconv.Itoa(int(id))
	}
	return slug
}

// adminTokenCreate is POST /admin/account/tokens: name, scope (read or
// write) and projects (slugs, comma-separated; none: every project the
// account runs). The page answers with the token, the one time it is
// shown: it is never put in the session, whose flash a redirect would
// carry it in.
func (h *Handler) adminTokenCreate(w http.ResponseWriter, r *http.Request) error {
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	form := views.AdminTokensView{Name: strings.TrimSpace(r.PostForm.Get("name")), Scope: r.PostForm.Get("scope"),
		Projects: strings.TrimSpace(r.PostForm.Get("projects"))}
	var ids []int32
	for slug := range strings.SplitSeq(form.Projects, ",") {
		if slug = strings.TrimSpace(slug); slug == "" {
			continue
		}
		p, err := h.adm.projects.Get(r.Context(), slug)
		if errors.Is(err, projects.ErrNotFound) || err == nil && !account(r).CanRun(p.ID) {
			return h.renderTokens(w, r, refused("invalid-token", "Projects: you run no project "+slug+"."), form)
		}
		if err != nil {
			return err
		}
		if !slices.Contains(ids, p.ID) {
			ids = append(ids, p.ID)
		}
	}
	t, secret, err := h.users.CreateToken(r.Context(), account(r), form.Name, form.Scope, ids)
	if refusal.IsInvalid(err) {
		return h.renderTokens(w, r, refused("invalid-token", err.Error()+"."), form)
	}
	if err != nil {
		return err
	}
	return h.renderTokens(w, r, shown(), views.AdminTokensView{Secret: secret, SecretName: t.Name})
}

// adminTokenRevoke is POST /admin/account/tokens/{id}/revoke: one of the
// account's tokens is revoked.
func (h *Handler) adminTokenRevoke(w http.ResponseWriter, r *http.Request) error {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 32)
	if err != nil {
		return errorf(http.StatusNotFound, "unknown-token", "no such token")
	}
	t, err := h.users.RevokeToken(r.Context(), int32(id), account(r).ID)
	if errors.Is(err, users.ErrNoToken) {
		return errorf(http.StatusNotFound, "unknown-token", "you have no token %d", id)
	}
	if err != nil {
		return err
	}
	return h.redirectWithFlash(w, r, "/admin/account/tokens", "Token "+t.Name+" revoked: its next request is refused.")
}
