package handlers

import (
	"net/http"

	"tracker/items"
	"tracker/projects"
)

// warriorUpload tells a warrior where to upload: one of the project's
// enabled targets, picked by weight, with ":downloader" filled in.
func (h *Handler) warriorUpload(w http.ResponseWriter, r *http.Request) error {
	live, err := h.project(r)
	if err != nil {
		return err
	}
	p := live.Project
	var body struct {
		Downloader string         `json:"downloader"`
		ItemName   string         `json:"item_name"`
		Version    flexibleString `json:"version"`
	}
	if err := decodeJSON(w, r, maxWarriorBody, &body); err != nil {
		return err
	}
	if err := items.ValidNick(body.Downloader); err != nil {
		return errorf(http.StatusBadRequest, "invalid-downloader", "%v", err)
	}
	targets, err := h.projects.Targets(r.Context(), p)
	if err != nil {
		return err
	}
	target, ok := projects.PickTarget(targets, body.Downloader)
	if !ok {
		return &Error{Status: http.StatusNotFound, Reason: "no-upload-target", Msg: "the project has no upload target enabled", RetryAfter: 60}
	}
	return writeJSON(w, http.StatusOK, map[string]string{"upload_target": target})
}

// warriorUploaded records an upload receipt.
func (h *Handler) warriorUploaded(w http.ResponseWriter, r *http.Request) error {
	live, err := h.project(r)
	if err != nil {
		return err
	}
	p := live.Project
	var body struct {
		Uploader string `json:"uploader"`
		Item     string `json:"item"`
		User     string `json:"user"` // what the oldest clients call the item
		Server   string `json:"server"`
	}
	if err := decodeJSON(w, r, maxWarriorBody, &body); err != nil {
		return err
	}
	if body.Item == "" {
		body.Item = body.User
	}
	if err := items.ValidNick(body.Uploader); err != nil {
		return errorf(http.StatusBadRequest, "invalid-uploader", "%v", err)
	}
	if err := items.ValidName(body.Item); err != nil {
		return errorf(http.StatusBadRequest, "invalid-item", "%v", err)
	}
	if body.Server == "" || len(body.Server) > 1024 {
		return errorf(http.StatusBadRequest, "invalid-server", "server: 1-1024 characters")
	}
	if err := items.ValidLabel("server", body.Server); err != nil {
		return errorf(http.StatusBadRequest, "invalid-server", "%v", err)
	}
	if err := h.items.RecordUpload(r.Context(), p, body.Uploader, body.Item, body.Server, clientIP(r)); err != nil {
		return err
	}
	return writeText(w, http.StatusOK, "OK\n")
}
