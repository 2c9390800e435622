package handlers

import (
	"context"
	"net/http"
	"time"
)

// healthShow answers 200 when the database answers, 503 when it does not,
// or when no connection to it came free in time (connections-busy: the
// database may be well, the web pool is full).
func (h *Handler) healthShow(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := h.pool.Ping(ctx); err != nil {
		if waited(err) {
			return errConnectionsBusy
		}
		return &Error{Status: http.StatusServiceUnavailable, Reason: "database-unavailable",
			Msg: "database not answering", RetryAfter: 10}
	}
	return writeText(w, http.StatusOK, "ok\n")
}
