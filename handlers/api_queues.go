package handlers

import (
	"net/http"
	"strings"
	"time"

	"tracker/items"
)

// apiSelection picks items by name, as the panel's bulk forms do.
type apiSelection struct {
	Prefix  string `json:"prefix"`
	Pattern string `json:"pattern"`
}

func (s apiSelection) selection() items.Selection {
	return items.Selection{Prefix: s.Prefix, Pattern: strings.TrimSpace(s.Pattern)}
}

// queueMove is the body of POST .../queues/move.
type queueMove struct {
	From string `json:"from"`
	To   string `json:"to"`
	apiSelection
}

func (m queueMove) texts() []string { return []string{m.From, m.To, m.Prefix, m.Pattern} }

// apiQueueMove is POST /api/v1/projects/{slug}/queues/move: the items of
// queue from that the selection picks go to queue to (from error: with a
// fresh count of hand-outs), as the panel moves them.
func (h *Handler) apiQueueMove(w http.ResponseWriter, r *http.Request) error {
	p, err := h.apiProject(r)
	if err != nil {
		return err
	}
	var m queueMove
	if err := h.apiDecode(w, r, &m); err != nil {
		return err
	}
	m.From, m.To = strings.TrimSpace(m.From), strings.TrimSpace(m.To)
	if m.To == "" || m.From == m.To {
		return errorf(http.StatusBadRequest, "same-queue", "from and to: two different queues")
	}
	n, err := h.items.MoveQueue(r.Context(), p, m.From, m.To, m.selection())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]int64{"moved": n})
}

// queueDrain is the body of POST .../queues/drain.
type queueDrain struct {
	Queue string `json:"queue"`
	apiSelection
}

func (d queueDrain) texts() []string { return []string{d.Queue, d.Prefix, d.Pattern} }

// apiQueueDrain is POST /api/v1/projects/{slug}/queues/drain: the items
// of the queue that the selection picks are dropped for good (they stay
// seen, so they are not queued again), as the panel drains them.
func (h *Handler) apiQueueDrain(w http.ResponseWriter, r *http.Request) error {
	p, err := h.apiProject(r)
	if err != nil {
		return err
	}
	var d queueDrain
	if err := h.apiDecode(w, r, &d); err != nil {
		return err
	}
	n, err := h.items.MoveQueue(r.Context(), p, strings.TrimSpace(d.Queue), "", d.selection())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]int64{"drained": n})
}

// claimsRelease is the body of POST .../claims/release.
type claimsRelease struct {
	Downloader       string `json:"downloader"`
	OlderThanMinutes int    `json:"older_than_minutes"`
	apiSelection
}

func (c claimsRelease) texts() []string { return []string{c.Downloader, c.Prefix, c.Pattern} }

// apiClaimsRelease is POST /api/v1/projects/{slug}/claims/release: the
// claims older than older_than_minutes, of downloader, that the selection
// picks (each when given) go back to their queues, as the panel releases
// them.
func (h *Handler) apiClaimsRelease(w http.ResponseWriter, r *http.Request) error {
	p, err := h.apiProject(r)
	if err != nil {
		return err
	}
	var c claimsRelease
	if err := h.apiDecode(w, r, &c); err != nil {
		return err
	}
	if c.OlderThanMinutes < 0 || c.OlderThanMinutes > 100*365*24*60 {
		return errorf(http.StatusBadRequest, "invalid-older-than", "older_than_minutes: a whole number of minutes, 0 or more")
	}
	n, err := h.items.ReleaseWhere(r.Context(), p, strings.TrimSpace(c.Downloader), time.Duration(c.OlderThanMinutes)*time.Minute, c.selection())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]int64{"released": n})
}
