package handlers

import (
	"bytes"
	"errors"
	"net/http"
	"strings"

	"tracker/projects"
)

// logRecent answers GET /recent/{slug}-log: the project's newest 20
// messages of the live log, oldest first, as a JSON array of the
// messages' objects, for any page to read (Access-Control-Allow-Origin:
// *), as the original broadcaster served them before a page joined the
// log.
func (h *Handler) logRecent(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	p, err := h.projectOfChannel(r, r.PathValue("channel"))
	if err != nil {
		return err
	}
	msgs, err := h.logs.Recent(r.Context(), p)
	if err != nil {
		return err
	}
	body := append(append([]byte("["), bytes.Join(msgs, []byte(","))...), ']')
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, err = w.Write(body)
	return err
}

// projectOfChannel is the public project of a log channel "{slug}-log".
func (h *Handler) projectOfChannel(r *http.Request, channel string) (projects.Project, error) {
	slug, ok := strings.CutSuffix(channel, "-log")
	if !ok || projects.ValidSlug(slug) != nil {
		return projects.Project{}, errorf(http.StatusNotFound, "unknown-project", "a live log is {project}-log")
	}
	live, err := h.live.Get(r.Context(), slug)
	if errors.Is(err, projects.ErrNotFound) || err == nil && live.Project.Config.Hidden {
		return projects.Project{}, errorf(http.StatusNotFound, "unknown-project", "no public project %q", slug)
	}
	if err != nil {
		return projects.Project{}, err
	}
	return live.Project, nil
}
