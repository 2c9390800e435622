package handlers

import (
	"net/http"

	"tracker/static"
)

// Routes is the tracker's site map.
func (h *Handler) Routes() http.Handler {
	mux := http.NewServeMux()

	// Operators and load balancers.
	mux.Handle("GET /healthz", h.api(h.healthShow))

	// Public pages.
	mux.Handle("GET /{$}", h.page(h.homeShow))
	mux.Handle("GET /static/", http.StripPrefix("/static/", staticFiles(static.FS)))

	// The warrior protocol (PROTOCOL.md). Its paths carry multi={N} and a
	// double slash that ServeMux would redirect, so they have their own
	// matcher in front of the mux: POST /{project}/{action},
	// /{project}/multi={N}/{action} and /{project}/multi={N}//{action}.
	warrior := warriorRoutes{
		"request": h.api(h.warriorRequest),
		"done":    h.api(h.warriorDone),
	}

	return warrior.in(mux)
}
