package handlers

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"tracker/warriors"
)

// hqBodyLimit bounds the warrior HQ's bodies, a few hundred bytes in
// practice.
const hqBodyLimit = 16 << 10

// hqBody is what register.json and update.json carry (docs/PROTOCOL.md,
// "Warrior HQ").
type hqBody struct {
	Warrior struct {
		Version string `json:"version"`
		ID      string `json:"warrior_id"`
		// Read by warriors.ParseLatLng: leniently, numbers of the wrong
		// type would come out as zeros.
		LatLng          json.RawMessage `json:"lat_lng"`
		Downloader      string          `json:"downloader"`
		SelectedProject string          `json:"selected_project"`
	} `json:"warrior"`
}

// readHQBody reads a warrior HQ body. Only malformed JSON is refused: a
// field of an unexpected type is left empty, since a warrior answered
// anything but 200 drops its projects.
func readHQBody(w http.ResponseWriter, r *http.Request) (hqBody, error) {
	var raw json.RawMessage
	var body hqBody
	if err := decodeJSON(w, r, hqBodyLimit, &raw); err != nil {
		return body, err
	}
	var typeErr *json.UnmarshalTypeError
	if err := json.Unmarshal(raw, &body); err != nil && !errors.As(err, &typeErr) {
		return body, errorf(http.StatusBadRequest, "malformed-json", "malformed JSON body: %v", err)
	}
	return body, nil
}

func hqContact(r *http.Request, b hqBody) warriors.Contact {
	return warriors.Contact{
		ID: b.Warrior.ID, Nick: b.Warrior.Downloader, SelectedProject: b.Warrior.SelectedProject,
		LatLng: warriors.ParseLatLng(b.Warrior.LatLng), UserAgent: r.UserAgent(), Version: b.Warrior.Version, Address: clientIP(r),
	}
}

// warriorRegister answers POST /api/register.json with a new warrior id
// (the shared anonymous id past the per-address limit).
func (h *Handler) warriorRegister(w http.ResponseWriter, r *http.Request) error {
	body, err := readHQBody(w, r)
	if err != nil {
		return err
	}
	id, err := h.warriors.Register(r.Context(), hqContact(r, body))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]string{"warrior_id": id})
}

// warriorUpdate answers POST /api/update.json, every warrior's call every
// 10 minutes, with the projects file, byte for byte what GET
// /projects.json serves. The contact is recorded first; if that fails the
// warrior still gets its projects, since any other answer makes it drop
// them.
func (h *Handler) warriorUpdate(w http.ResponseWriter, r *http.Request) error {
	body, err := readHQBody(w, r)
	if err != nil {
		return err
	}
	if _, err := h.warriors.Update(r.Context(), hqContact(r, body)); err != nil {
		if r.Context().Err() != nil {
			return err
		}
		h.log.Warn("warrior contact not recorded", "err", err)
	}
	file, err := h.projectsFile(w, r)
	if err != nil {
		return err
	}
	return writeCached(w, r, file, 10*time.Second)
}
