package handlers

import (
	"net/http"

	"tracker/projects"
)

// renderSection shows a section of a project's admin: what a form that
// was refused renders again, with st saying why.
func (h *Handler) renderSection(w http.ResponseWriter, r *http.Request, p projects.Project, section string, st formState) error {
	switch section {
	case "queues":
		return h.renderQueues(w, r, p, st)
	case "feeds":
		return h.renderFeeds(w, r, p, st)
	case "claims":
		return h.renderClaims(w, r, p, st)
	case "limits":
		return h.renderLimits(w, r, p, st)
	case "warriors":
		return h.renderWarriors(w, r, p, st)
	case "archive":
		return h.renderArchive(w, r, p, st)
	case "danger":
		return h.renderDanger(w, r, p, st)
	}
	return h.renderOverview(w, r, p, st)
}

// sectionShow is GET of a section's page.
func (h *Handler) sectionShow(section string) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := h.adminProject(r)
		if err != nil {
			return err
		}
		return h.renderSection(w, r, p, section, shown())
	}
}
