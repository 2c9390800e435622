package handlers

import "net/http"

// leaderboardShow is GET /{project}/: the project's leaderboard.
func (h *Handler) leaderboardShow(w http.ResponseWriter, r *http.Request) error {
	return errorf(http.StatusNotFound, "not-found", "soon")
}

// downloaderShow is GET /{project}/downloader/{nick}.
func (h *Handler) downloaderShow(w http.ResponseWriter, r *http.Request) error {
	return errorf(http.StatusNotFound, "not-found", "soon")
}

// nickShow is GET /downloader/{nick}/: a nick on every project.
func (h *Handler) nickShow(w http.ResponseWriter, r *http.Request) error {
	return errorf(http.StatusNotFound, "not-found", "soon")
}
