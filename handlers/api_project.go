package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"tracker/projects"
)

// apiProjectDoc is a project as the admin API answers it (openapi.yaml,
// Project): what tracker project show prints.
type apiProjectDoc struct {
	Slug   string           `json:"slug"`
	Title  string           `json:"title"`
	Config projects.Config  `json:"config"`
	Queues map[string]int64 `json:"queues"`
	Claims int64            `json:"claims"`
	// Done counts every completion, archived and discarded ones included.
	Done      int64 `json:"done"`
	Bytes     int64 `json:"bytes"`
	Reclaims  int64 `json:"reclaims"`
	Archived  int64 `json:"archived"`
	Discarded int64 `json:"discarded"`
}

// writeProject answers p's configuration and counts.
func (h *Handler) writeProject(w http.ResponseWriter, r *http.Request, p projects.Project) error {
	sum, err := h.adm.projects.Summary(r.Context(), p)
	if err != nil {
		return err
	}
	config := p.Config
	if !apiToken(r).CanWrite() {
		// The backfeed key queues items: a read token does not see it.
		config.BackfeedKey = ""
	}
	return writeJSON(w, http.StatusOK, apiProjectDoc{Slug: p.Slug, Title: p.Title, Config: config,
		Queues: sum.Queues, Claims: sum.Claims, Done: sum.Done, Bytes: sum.Bytes, Reclaims: sum.Reclaims,
		Archived: sum.Archived, Discarded: sum.Discarded})
}

// apiProjectShow is GET /api/v1/projects/{slug}: the project's
// configuration and counts.
func (h *Handler) apiProjectShow(w http.ResponseWriter, r *http.Request) error {
	p, err := h.apiProject(r)
	if err != nil {
		return err
	}
	return h.writeProject(w, r, p)
}

// configChange is the body of POST .../config: configuration keys and
// their values, as strings, numbers or booleans.
type configChange map[string]json.RawMessage

func (c configChange) texts() []string { return slices.Collect(maps.Keys(c)) }

// apiProjectConfig is POST /api/v1/projects/{slug}/config: the keys given
// are set, all or none, as the panel's settings forms and tracker project
// set set them; a refusal names each key refused and why.
func (h *Handler) apiProjectConfig(w http.ResponseWriter, r *http.Request) error {
	p, err := h.apiProject(r)
	if err != nil {
		return err
	}
	var change configChange
	if err := h.apiDecode(w, r, &change); err != nil {
		return err
	}
	if len(change) == 0 {
		return errorf(http.StatusBadRequest, "invalid-config", "no key to set")
	}
	globalAdmin := account(r).IsAdmin()
	refused := map[string]string{}
	var assignments []string
	for _, name := range slices.Sorted(maps.Keys(change)) {
		i := slices.IndexFunc(projects.Keys, func(k projects.Key[projects.Project]) bool { return k.Name == name })
		if i < 0 {
			refused[name] = "no such key"
			continue
		}
		value, ok := configValue(change[name])
		switch {
		case !ok:
			refused[name] = "a string, a number or a boolean"
		case !isText(value):
			refused[name] = "UTF-8 without NUL"
		case projects.Keys[i].GlobalOnly && !globalAdmin && value != projects.Keys[i].Value(p):
			refused[name] = "only global admins may change this"
		default:
			assignments = append(assignments, name+"="+value)
		}
	}
	if len(refused) > 0 {
		return &Error{Status: http.StatusBadRequest, Reason: "invalid-config", Msg: "nothing was saved: " + projects.FieldErrors(refused).Error(), Fields: refused}
	}
	updated, err := h.projects.Set(r.Context(), p, assignments)
	var fields projects.FieldErrors
	if errors.As(err, &fields) {
		return &Error{Status: http.StatusBadRequest, Reason: "invalid-config", Msg: "nothing was saved: " + fields.Error(), Fields: fields}
	}
	if err != nil {
		return err
	}
	return h.writeProject(w, r, updated)
}

// configValue is a JSON value as a configuration key's text.
func configValue(raw json.RawMessage) (string, bool) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return "", false
	}
	switch v := v.(type) {
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	case bool:
		return strconv.FormatBool(v), true
	}
	return "", false
}
