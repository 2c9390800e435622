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
	// A project's pages. ServeMux cannot hold both "/static/" and
	// "/{project}/stats.json" (neither is more specific than the other), so
	// one pattern takes every GET under a project and projectPages the rest
	// of the path.
	mux.Handle("GET /{project}/{rest...}", projectPages{
		routes: map[string]http.Handler{
			"":            h.page(h.leaderboardShow),
			"stats.json":  h.api(h.statsJSON),
			"charts.json": h.api(h.chartsJSON),
			"events":      h.api(h.boardEvents),
			"downloader/": h.page(h.downloaderShow), // downloader/{nick}
		},
		notFound: h.page(notFound),
	})
	mux.Handle("GET /downloader/{nick}/{$}", h.page(h.nickShow))
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
