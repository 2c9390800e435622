package handlers

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"tracker/items"
	"tracker/projects"
)

// maxWarriorBody bounds the JSON body of request and done. A done of a
// multi=100 batch of long URLs stays far below it.
const maxWarriorBody = 4 << 20

// requestBody is what a warrior sends to ask for work.
type requestBody struct {
	Downloader string         `json:"downloader"`
	APIVersion flexibleString `json:"api_version"`
	Version    flexibleString `json:"version"`
}

// requestAnswer is the answer to a request for work.
type requestAnswer struct {
	ItemName   string                     `json:"item_name"`
	ItemParams map[string]json.RawMessage `json:"item_params,omitempty"`
}

// warriorRequest hands out an item, or with multi={N} up to N items joined
// by NUL, as {"item_name": "..."}; 404 with an empty body when there is none.
func (h *Handler) warriorRequest(w http.ResponseWriter, r *http.Request) error {
	live, body, release, err := warriorCall[requestBody](h, w, r, maxWarriorBody)
	if err != nil {
		return err
	}
	defer release()
	return h.handOut(w, r, live, body)
}

// handOut answers a request for work.
func (h *Handler) handOut(w http.ResponseWriter, r *http.Request, live *projects.Live, body requestBody) error {
	want := 1
	if n := pathMulti(r); n > 0 {
		want = min(n, int(max(live.Config.MaxMulti, 1)))
	}
	got, err := h.items.Request(r.Context(), live, items.ClaimRequest{
		Downloader: body.Downloader,
		Version:    string(body.Version),
		IP:         clientIP(r),
		Max:        want,
	})
	var refused *items.Refusal
	if err == nil || errors.As(err, &refused) {
		// A volunteer is an address asking for work, served or not. A
		// statement only for an address this process has not marked
		// lately; its failure costs a count, not the warrior's answer.
		if err := h.volunteers.Mark(r.Context(), live.ID, clientIP(r)); err != nil {
			h.log.Warn("counting a volunteer", "project", live.Slug, "err", err)
		}
	}
	if err != nil {
		return err
	}
	// Items with parameters carry them beside the names; seesaw copies the
	// extra key into its item, and a client that ignores it is unaffected.
	return writeJSON(w, http.StatusOK, requestAnswer{ItemName: strings.Join(got.Names, "\x00"), ItemParams: got.Params})
}

// refusalStatus is the status a warrior gets for each refusal: the codes
// seesaw understands (docs/PROTOCOL.md, "Status codes and reasons").
var refusalStatus = map[string]int{
	items.ReasonNoItems:               http.StatusNotFound,
	items.ReasonPaused:                http.StatusNotFound,
	items.ReasonFinished:              http.StatusNotFound,
	items.ReasonClaimsLimit:           http.StatusNotFound,
	items.ReasonVersion:               455,
	items.ReasonBlocked:               http.StatusForbidden,
	items.ReasonRateLimited:           http.StatusTooManyRequests,
	items.ReasonTypeRateLimited:       http.StatusTooManyRequests,
	items.ReasonSitesWaiting:          http.StatusTooManyRequests,
	items.ReasonDownloaderClaimsLimit: http.StatusTooManyRequests,
	items.ReasonTooManyExpired:        http.StatusTooManyRequests,
}

// refusalError turns the engine's refusal into an answer. A 404 keeps the
// empty body the protocol describes; the reason header says which 404.
func refusalError(ref *items.Refusal) *Error {
	status, ok := refusalStatus[ref.Reason]
	if !ok {
		status = http.StatusServiceUnavailable
	}
	e := &Error{Status: status, Reason: ref.Reason}
	if status != http.StatusNotFound {
		e.Msg = ref.Error()
	}
	if ref.RetryAfter > 0 {
		e.RetryAfter = max(1, int((ref.RetryAfter+999_999_999)/1_000_000_000))
	}
	return e
}

// project finds the project the path names, as the cache has it.
func (h *Handler) project(r *http.Request) (*projects.Live, error) {
	return h.projectIn(h.live, r)
}

// projectIn is the request's project as cache holds it.
func (h *Handler) projectIn(cache *projects.Cache, r *http.Request) (*projects.Live, error) {
	slug := r.PathValue("project")
	live, err := cache.Get(r.Context(), slug)
	if errors.Is(err, projects.ErrNotFound) {
		return nil, errorf(http.StatusNotFound, "unknown-project", "no project %q", slug)
	}
	return live, err
}
