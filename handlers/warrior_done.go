package handlers

import (
	"encoding/json"
	"net/http"
	"strings"

	"tracker/items"
	"tracker/projects"
)

// doneBody is what a warrior sends when it finished items.
type doneBody struct {
	Downloader string           `json:"downloader"`
	Version    flexibleString   `json:"version"`
	Item       string           `json:"item"`
	Bytes      map[string]int64 `json:"bytes"`
	ID         json.RawMessage  `json:"id"`
	// Result maps items to their results (any JSON), kept with the
	// completions.
	Result map[string]json.RawMessage `json:"result"`
	// Outcome maps items to what their visit found ("none", "some",
	// "full" or a factor): a recurring project's scores adapt to it.
	Outcome map[string]items.Outcome `json:"outcome"`
}

// warriorDone records the NUL-joined items of a done as completed and
// answers 200 "OK" once that is committed. Items that are not claimed (a
// repeated done, or one reclaimed and finished by someone else) are answered
// OK as well and not counted again: anything but OK makes the client retry
// the same done forever.
func (h *Handler) warriorDone(w http.ResponseWriter, r *http.Request) error {
	live, body, release, err := warriorCall[doneBody](h, w, r, maxWarriorBody)
	if err != nil {
		return err
	}
	defer release()
	p := live.Project
	if err := h.complete(r, p, body); err != nil {
		return err
	}
	return writeText(w, http.StatusOK, "OK")
}

func (h *Handler) complete(r *http.Request, p projects.Project, body doneBody) error {
	// One name past the most a done may name is enough to refuse it.
	c := items.Completion{
		Downloader: body.Downloader,
		Version:    string(body.Version),
		IP:         clientIP(r),
		Items:      strings.SplitN(body.Item, "\x00", items.MaxDoneItems+1),
		Bytes:      body.Bytes,
		ClientID:   body.ID,
		Results:    body.Result,
		Outcomes:   body.Outcome,
		UserAgent:  r.UserAgent(),
	}
	_, err := h.items.Complete(r.Context(), p, c)
	return err
}

// doneRequestBody is a done and request in one call: the done's body and
// the request's protocol version.
type doneRequestBody struct {
	doneBody
	APIVersion flexibleString `json:"api_version"`
}

// warriorDoneRequest is done, then request, in one call: the answer is the
// request's.
func (h *Handler) warriorDoneRequest(w http.ResponseWriter, r *http.Request) error {
	live, body, release, err := warriorCall[doneRequestBody](h, w, r, maxWarriorBody)
	if err != nil {
		return err
	}
	defer release()
	p := live.Project
	if err := h.complete(r, p, body.doneBody); err != nil {
		return err
	}
	return h.handOut(w, r, live, requestBody{Downloader: body.Downloader, APIVersion: body.APIVersion, Version: body.Version})
}
