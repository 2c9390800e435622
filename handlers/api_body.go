package handlers

import (
	"encoding/json"
	"errors"
	"net/http"
)

// apiBodyLimit bounds the JSON body of an admin API change: a few fields.
const apiBodyLimit = 64 << 10

// apiDecode reads r's JSON object body into v, once it has its share of
// the admin uploads' budget: a field v does not have is refused (a
// script's misspelt "patern" must not select every item), and so is a
// text the database cannot hold (texts).
func (h *Handler) apiDecode(w http.ResponseWriter, r *http.Request, v interface{ texts() []string }) error {
	release, err := h.bodies.admin.reserve(r, apiBodyLimit)
	if err != nil {
		return err
	}
	defer release()
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, apiBodyLimit))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if e := bodyRefusal(err); e != nil {
			return e
		}
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return errorf(http.StatusBadRequest, "malformed-json", "field %q: expected %s, got %s", typeErr.Field, typeErr.Type, typeErr.Value)
		}
		return errorf(http.StatusBadRequest, "malformed-json", "malformed JSON body: %v", err)
	}
	if dec.More() {
		return errorf(http.StatusBadRequest, "malformed-json", "malformed JSON body: data after the object")
	}
	for _, s := range v.texts() {
		if !isText(s) {
			return errorf(http.StatusBadRequest, "invalid-text", "texts must be UTF-8 without NUL")
		}
	}
	return nil
}
