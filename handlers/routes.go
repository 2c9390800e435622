package handlers

import (
	"net/http"

	"tracker/static"
)

// Routes is the tracker's site map. Each route is named for the metrics
// (tracker_http_requests_total{route}).
func (h *Handler) Routes() http.Handler {
	mux := http.NewServeMux()

	// Operators and load balancers.
	mux.Handle("GET /healthz", named("healthz", h.api(h.healthShow)))
	mux.Handle("GET /metrics", named("metrics", h.metrics.handler()))

	// Public pages and their data.
	mux.Handle("GET /{$}", named("home", h.page(h.homeShow)))
	mux.Handle("GET /static/", named("static", http.StripPrefix("/static/", staticFiles(static.FS))))
	mux.Handle("GET /projects.json", named("projects.json", h.api(h.projectsJSON)))
	// A project's pages. ServeMux cannot hold both "/static/" and
	// "/{project}/stats.json" (neither is more specific than the other), so
	// one pattern takes every GET under a project and projectPages the rest
	// of the path.
	mux.Handle("GET /{project}/{rest...}", projectPages{
		routes: map[string]http.Handler{
			"":            named("leaderboard", h.page(h.leaderboardShow)),
			"stats.json":  named("stats.json", h.api(h.statsJSON)),
			"charts.json": named("charts.json", h.api(h.chartsJSON)),
			"events":      named("events", h.api(h.boardEvents)),
			"downloader/": named("downloader", h.page(h.downloaderShow)), // downloader/{nick}
		},
		notFound: h.page(notFound),
	})
	mux.Handle("GET /downloader/{nick}/{$}", named("nick", h.page(h.nickShow)))

	// The admin panel. Every route but the login form needs a signed-in
	// admin; every state change is a POST, refused when cross-origin.
	mux.Handle("GET /admin/login", named("admin", h.adminPublic(h.adminLoginShow)))
	mux.Handle("POST /admin/login", named("admin", h.adminPublic(h.adminLogin)))
	mux.Handle("POST /admin/logout", named("admin", h.admin(h.adminLogout)))
	mux.Handle("GET /admin/{$}", named("admin", h.admin(h.adminHome)))
	mux.Handle("POST /admin/projects", named("admin", h.admin(h.adminProjectCreate)))
	mux.Handle("GET /admin/projects/{slug}/{$}", named("admin", h.admin(h.adminProjectShow)))
	mux.Handle("POST /admin/projects/{slug}/config", named("admin", h.admin(h.adminProjectConfig)))
	mux.Handle("POST /admin/projects/{slug}/items", named("admin", h.admin(h.adminItemsAdd)))
	mux.Handle("POST /admin/projects/{slug}/claims/release", named("admin", h.admin(h.adminClaimsRelease)))
	mux.Handle("GET /admin/audit", named("admin", h.admin(h.adminAudit)))
	mux.Handle("POST /admin/projects/{slug}/delete", named("admin", h.admin(h.adminProjectDelete)))
	mux.Handle("GET /admin/projects/{slug}/claims", named("admin", h.admin(h.adminClaims)))
	mux.Handle("POST /admin/projects/{slug}/queues/{action}", named("admin", h.admin(h.adminQueueMove)))
	mux.Handle("POST /admin/projects/{slug}/done/requeue", named("admin", h.admin(h.adminDoneRequeue)))
	mux.Handle("POST /admin/projects/{slug}/item/{action}", named("admin", h.admin(h.adminItem)))
	mux.Handle("POST /admin/projects/{slug}/blocks/{action}", named("admin", h.admin(h.adminBlock)))
	mux.Handle("POST /admin/projects/{slug}/targets/{action}", named("admin", h.admin(h.adminTarget)))
	mux.Handle("POST /admin/projects/{slug}/backfeed-key", named("admin", h.admin(h.adminBackfeedKey)))
	mux.Handle("GET /admin/settings", named("admin", h.admin(h.adminSettings)))
	mux.Handle("POST /admin/settings", named("admin", h.admin(h.adminSettings)))
	mux.Handle("GET /admin/users", named("admin", h.admin(h.adminUsers)))
	mux.Handle("POST /admin/users", named("admin", h.admin(h.adminUserCreate)))
	mux.Handle("POST /admin/users/{id}/{action}", named("admin", h.admin(h.adminUserChange)))
	// Anything else under /admin/: the login page for strangers, 404 for admins.
	mux.Handle("GET /admin/", named("admin", h.admin(notFound)))
	mux.Handle("POST /admin/", named("admin", h.admin(notFound)))

	// Backfeed from grab scripts.
	mux.Handle("POST /backfeed/legacy/{target}", named("backfeed", h.api(h.backfeed)))

	// The warrior protocol (PROTOCOL.md). Its paths carry multi={N} and a
	// double slash that ServeMux would redirect, so they have their own
	// matcher in front of the mux: POST /{project}/{action},
	// /{project}/multi={N}/{action} and /{project}/multi={N}//{action}.
	warrior := warriorRoutes{}
	for action, fn := range map[string]func(http.ResponseWriter, *http.Request) error{
		"request":      h.warriorRequest,
		"done":         h.warriorDone,
		"done+request": h.warriorDoneRequest,
		"release":      h.warriorRelease,
		"upload":       h.warriorUpload,
		"uploaded":     h.warriorUploaded,
	} {
		warrior[action] = named(action, h.api(fn))
	}

	// An item's status: GET /{project}/items/{item}.json. Names are often
	// URLs, whose "//" ServeMux would redirect away, so this route too is
	// matched on the escaped path in front of the mux.
	items := itemRoute{named("item", h.api(h.itemShow))}

	return h.metrics.measure(warrior.in(items.in(mux)))
}
