package handlers

import (
	"errors"
	"net/http"

	"tracker/items"
	"tracker/naming"
	"tracker/projects"
)

// uploadBody is a question for an upload target: whose, of which item,
// with which script.
type uploadBody struct {
	Downloader string         `json:"downloader"`
	ItemName   string         `json:"item_name"`
	Version    flexibleString `json:"version"`
}

// warriorUpload tells a warrior where to upload: one of the project's
// enabled targets, picked by weight, with ":downloader" filled in.
func (h *Handler) warriorUpload(w http.ResponseWriter, r *http.Request) error {
	live, body, release, err := warriorCall[uploadBody](h, w, r, maxWarriorBody)
	if err != nil {
		return err
	}
	defer release()
	p := live.Project
	if err := naming.ValidNick(body.Downloader); err != nil {
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

// maxReceiptBody bounds the body of an upload receipt: a nick, an item
// name (at most 8 KiB) and a server name (at most 1 KiB) fit with room to
// spare.
const maxReceiptBody = 16 << 10

// receiptBody is an upload receipt: who uploaded which item to which
// server.
type receiptBody struct {
	Uploader string `json:"uploader"`
	Item     string `json:"item"`
	User     string `json:"user"` // what the oldest clients call the item
	Server   string `json:"server"`
}

// warriorUploaded records an upload receipt, for an item the project has
// out or done only.
func (h *Handler) warriorUploaded(w http.ResponseWriter, r *http.Request) error {
	live, body, release, err := warriorCall[receiptBody](h, w, r, maxReceiptBody)
	if err != nil {
		return err
	}
	defer release()
	p := live.Project
	if body.Item == "" {
		body.Item = body.User
	}
	if err := naming.ValidNick(body.Uploader); err != nil {
		return errorf(http.StatusBadRequest, "invalid-uploader", "%v", err)
	}
	if err := naming.ValidName(body.Item); err != nil {
		return errorf(http.StatusBadRequest, "invalid-item", "%v", err)
	}
	if body.Server == "" || len(body.Server) > items.MaxReceiptServer {
		return errorf(http.StatusBadRequest, "invalid-server", "server: 1-%d bytes", items.MaxReceiptServer)
	}
	if err := naming.ValidLabel("server", body.Server); err != nil {
		return errorf(http.StatusBadRequest, "invalid-server", "%v", err)
	}
	err = h.items.RecordUpload(r.Context(), p, body.Uploader, body.Item, body.Server, clientIP(r))
	switch {
	case errors.Is(err, items.ErrNotOut):
		return errorf(http.StatusNotFound, "unknown-item", "no receipt kept: the project has no item %q out or done", body.Item)
	case errors.Is(err, items.ErrTooManyReceipts):
		return errorf(http.StatusConflict, "too-many-receipts", "no receipt kept: item %q has %d receipts already", body.Item, items.MaxReceiptsPerItem)
	case err != nil:
		return err
	}
	return writeText(w, http.StatusOK, "OK\n")
}
