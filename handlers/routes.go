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
	mux.Handle("GET /projects.json", h.api(h.projectsJSON))
	mux.Handle("GET /{project}/stats.json", h.api(h.statsJSON))
	mux.Handle("GET /{project}/charts.json", h.api(h.chartsJSON))
	mux.Handle("GET /{project}/events", h.api(h.boardEvents))
	mux.Handle("GET /static/", http.StripPrefix("/static/", staticFiles(static.FS)))

	// Backfeed from grab scripts.
	mux.Handle("POST /backfeed/legacy/{target}", h.api(h.backfeed))

	// The warrior protocol (PROTOCOL.md). Its paths carry multi={N} and a
	// double slash that ServeMux would redirect, so they have their own
	// matcher in front of the mux: POST /{project}/{action},
	// /{project}/multi={N}/{action} and /{project}/multi={N}//{action}.
	warrior := warriorRoutes{
		"request":      h.api(h.warriorRequest),
		"done":         h.api(h.warriorDone),
		"done+request": h.api(h.warriorDoneRequest),
		"release":      h.api(h.warriorRelease),
		"upload":       h.api(h.warriorUpload),
		"uploaded":     h.api(h.warriorUploaded),
	}

	// An item's status: GET /{project}/items/{item}.json. Names are often
	// URLs, whose "//" ServeMux would redirect away, so this route too is
	// matched on the escaped path in front of the mux.
	items := itemRoute{h.api(h.itemShow)}

	return warrior.in(items.in(mux))
}
