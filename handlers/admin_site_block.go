package handlers

import (
	"errors"
	"net/http"
	"net/url"

	"tracker/projects"
)

// adminSiteBlock is POST /admin/projects/{slug}/sites/block: the site named
// "site" is handed out no more; its items stay queued, and those out may
// still be reported done.
func (h *Handler) adminSiteBlock(w http.ResponseWriter, r *http.Request) error {
	return h.siteBlock(w, r, true)
}

// adminSiteUnblock is POST /admin/projects/{slug}/sites/unblock: the site
// named "site" is handed out again.
func (h *Handler) adminSiteUnblock(w http.ResponseWriter, r *http.Request) error {
	return h.siteBlock(w, r, false)
}

func (h *Handler) siteBlock(w http.ResponseWriter, r *http.Request, blocked bool) error {
	p, err := h.adminProjectForm(w, r)
	if err != nil {
		return err
	}
	name := r.PostForm.Get("site")
	s, err := h.sites.SetBlocked(r.Context(), p.ID, name, blocked)
	if err != nil {
		return h.siteRefused(w, r, p, siteError(err, name))
	}
	msg := s.Name + " unblocked: its items are handed out again."
	if blocked {
		msg = s.Name + " blocked: its items stay queued and are handed out no more."
	}
	return h.toSite(w, r, p, s.Name, msg)
}

// siteRefused shows the limits section again with why an action on a site
// was refused (its status and reason in the answer); other errors pass.
func (h *Handler) siteRefused(w http.ResponseWriter, r *http.Request, p projects.Project, err error) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	return h.renderLimits(w, r, p, refusedBy(e))
}

// toSite sends the browser to a site's state in the limits section, with
// a message.
func (h *Handler) toSite(w http.ResponseWriter, r *http.Request, p projects.Project, name, flash string) error {
	return h.redirectWithFlash(w, r, "/admin/projects/"+p.Slug+"/limits?site="+url.QueryEscape(name)+"#site-h", flash)
}
