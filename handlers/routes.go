package handlers

import (
	"net/http"
	"strings"

	"tracker/static"
)

// Routes is the tracker's site map. Each route is named for the metrics
// (tracker_http_requests_total{route}).
func (h *Handler) Routes() http.Handler {
	mux := http.NewServeMux()

	// Operators and load balancers.
	mux.Handle("GET /healthz", named("healthz", h.api(h.healthShow)))
	mux.Handle("GET /metrics", named("metrics", h.metrics.handler()))

	// Public pages and their data. Those that read the database are read
	// routes (h.reader, readers.go): they take turns in the readers' slots
	// on a pool of their own, and never hold a connection of the warriors'.
	// They go out compressed to a client that takes it (compress.go).
	gz := compressed()
	mux.Handle("GET /{$}", named("home", gz(h.page(h.reader(h.homeShow)))))
	mux.Handle("GET /static/", named("static", gz(http.StripPrefix("/static/", staticFiles(static.FS)))))
	mux.Handle("GET /favicon.ico", named("favicon.ico", gz(rootFile(static.FS, "favicon.ico"))))
	mux.Handle("GET /robots.txt", named("robots.txt", gz(rootFile(static.FS, "robots.txt"))))
	mux.Handle("GET /projects.json", named("projects.json", gz(h.api(h.reader(h.projectsJSON)))))
	// Warrior HQ's maps of the warriors online, and its downloads: the
	// file warrior4 checks its network with, and what operators put in
	// the data directory's downloads/ (downloads.go).
	mux.Handle("GET /stats.json", named("hq.stats.json", anyOrigin(h.api(h.reader(h.hqStatsJSON)))))
	mux.Handle("GET /positions.json", named("hq.positions.json", anyOrigin(h.api(h.reader(h.hqPositionsJSON)))))
	mux.Handle("GET /downloads/", named("downloads", h.page(h.downloadsShow)))
	// A project's pages. ServeMux cannot hold both "/static/" and
	// "/{project}/stats.json" (neither is more specific than the other), so
	// one pattern takes every GET under a project and projectPages the rest
	// of the path. The public data (JSON) may be read by pages of any
	// site (anyOrigin).
	mux.Handle("GET /{project}/{rest...}", projectPages{ // projectPagesPattern
		routes: map[string]http.Handler{
			"":                       named("leaderboard", gz(h.page(h.reader(h.leaderboardShow)))),
			"stats.json":             named("stats.json", anyOrigin(gz(h.api(h.reader(h.statsJSON))))),
			"charts.json":            named("charts.json", anyOrigin(gz(h.api(h.reader(h.chartsJSON))))),
			"chart":                  named("chart", gz(h.api(h.reader(h.chartShow)))),
			"events":                 named("events", h.api(h.boardEvents)),
			"downloader/":            named("downloader", gz(h.page(h.reader(h.downloaderShow)))), // downloader/{nick}
			"downloader/{nick}.json": named("downloader.json", anyOrigin(gz(h.api(h.reader(h.downloaderJSON))))),
			"downloader":             named("downloader.find", h.page(h.reader(h.downloaderFind))), // ?nick=
		},
		notFound: h.page(notFound),
	})
	mux.Handle("GET /downloader/{nick}/{$}", named("nick", gz(h.page(h.reader(h.nickShow)))))
	mux.Handle("GET /downloader/{nick}", named("nick.json", anyOrigin(gz(h.api(h.reader(h.nickJSON)))))) // {nick}.json
	mux.Handle("GET /warriors/{$}", named("warriors", gz(h.page(h.reader(h.warriorsShow)))))

	// The live log of completions, in socket.io's protocol 0.9, and its
	// latest messages (docs/PROTOCOL.md, "Live log socket").
	mux.Handle("GET /socket.io/1/{$}", named("log.handshake", h.api(h.logHandshake)))
	mux.Handle("GET /socket.io/1/websocket/{sid}", named("log.websocket", h.api(h.logWebsocket)))
	mux.Handle("GET /socket.io/1/xhr-polling/{sid}", named("log.polling", h.api(h.logPollGet)))
	mux.Handle("POST /socket.io/1/xhr-polling/{sid}", named("log.polling", h.api(h.logPollPost)))
	mux.Handle("GET /recent/{channel}", named("log.recent", h.api(h.logRecent)))

	// The admin panel: every route goes through admin (a signed-in admin,
	// cross-origin state changes refused) but the login form's, which go
	// through adminPublic.
	mux.Handle("GET /admin/login", named("admin", h.adminPublic(h.adminLoginShow)))
	mux.Handle("POST /admin/login", named("admin", h.adminPublic(h.adminLogin)))
	for _, rt := range h.adminRoutes() {
		mux.Handle(rt.pattern, named("admin", h.admin(rt.fn)))
	}

	// The warrior HQ: warriors started with --warrior-hq register and get
	// their projects here (docs/PROTOCOL.md, "Warrior HQ").
	mux.Handle("POST /api/register.json", named("register.json", h.api(h.warriorRegister)))
	mux.Handle("POST /api/update.json", named("update.json", h.api(h.warriorUpdate)))

	// Backfeed from grab scripts.
	mux.Handle("POST /backfeed/legacy/{target}", named("backfeed", h.api(h.backfeed)))
	// The clock grab scripts check (docs/PROTOCOL.md, "GET /now").
	mux.Handle("GET /now", named("now", h.api(h.nowShow)))
	// The zstd dictionary grab scripts compress with (docs/PROTOCOL.md,
	// "GET /dictionary"), and its bytes.
	mux.Handle("GET /dictionary", named("dictionary", h.api(h.dictionaryShow)))
	mux.Handle("GET /dictionary/{id}", named("dictionary.bytes", h.api(h.dictionaryBytes)))

	// What no route above takes: ServeMux's own answers (a bare 404 or
	// 405) would not say why.
	mux.Handle("/", named("unrouted", unrouted{mux: mux, notFound: h.page(notFound)}))

	// The warrior protocol (docs/PROTOCOL.md, "Addressing"). Its paths carry multi={N} and a
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
	items := itemRoute{named("item", anyOrigin(gz(h.api(h.reader(h.itemShow)))))}

	// The other routes that only take POST: ServeMux would give another
	// method on them to "GET /{project}/{rest...}", a 404.
	post := postOnly{
		exact:  map[string]string{"/api/register.json": "register.json", "/api/update.json": "update.json"},
		prefix: map[string]string{"/backfeed/legacy/": "backfeed"},
	}

	return h.realClient(securityHeaders(limitBodies(withReasons(h.metrics.measure(reserveForWarriors(validText(apiRouter{h.apiMux()}.in(post.in(warrior.in(items.in(anyTarget(mux))))))))))))
}

// postOnly names the routes, outside the warrior protocol's, that take POST
// alone: by exact path, and by prefix, each with its route's name.
type postOnly struct {
	exact, prefix map[string]string
}

// in answers another method on one of the routes with 405 and Allow: POST,
// as the warrior paths are answered, and passes every other request on.
func (p postOnly) in(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		name, ok := p.exact[r.URL.Path]
		for prefix, n := range p.prefix {
			if !ok && strings.HasPrefix(r.URL.Path, prefix) {
				name, ok = n, true
			}
		}
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		named(name, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", http.MethodPost)
			writeError(w, errorf(http.StatusMethodNotAllowed, "method-not-allowed", "%s takes POST", name))
		})).ServeHTTP(w, r)
	})
}

// adminRoute is a route of the admin panel behind sign-in.
type adminRoute struct {
	pattern string
	fn      func(http.ResponseWriter, *http.Request) error
}

// adminRoutes are the admin panel's routes behind sign-in, one per page
// and per action; a test walks them all. State changes are POSTs; the
// pages read in turns on a side of the database of their own, and the
// bulk changes take turns too (h.bulk; admin_reads.go).
func (h *Handler) adminRoutes() []adminRoute {
	return []adminRoute{
		{"POST /admin/logout", h.adminLogout},
		{"GET /admin/{$}", h.adminHome},
		{"POST /admin/projects", h.adminProjectCreate},

		// A project's sections.
		{"GET /admin/projects/{slug}/{$}", h.sectionShow("")},
		{"GET /admin/projects/{slug}/queues", h.sectionShow("queues")},
		{"GET /admin/projects/{slug}/feeds", h.sectionShow("feeds")},
		{"GET /admin/projects/{slug}/claims", h.sectionShow("claims")},
		{"GET /admin/projects/{slug}/limits", h.sectionShow("limits")},
		{"GET /admin/projects/{slug}/warriors", h.sectionShow("warriors")},
		{"GET /admin/projects/{slug}/archive", h.sectionShow("archive")},
		{"GET /admin/projects/{slug}/danger", h.sectionShow("danger")},
		{"GET /admin/projects/{slug}/browse", h.adminBrowse},
		{"GET /admin/projects/{slug}/item", h.adminItemShow},

		// What a project's admin does.
		{"POST /admin/projects/{slug}/config", h.adminProjectConfig},
		{"POST /admin/projects/{slug}/pause", h.adminProjectPause},
		{"POST /admin/projects/{slug}/resume", h.adminProjectResume},
		{"POST /admin/projects/{slug}/items", h.bulk(h.adminItemsAdd)},
		{"POST /admin/projects/{slug}/queues/move", h.bulk(h.adminQueueMove)},
		{"POST /admin/projects/{slug}/queues/drain", h.bulk(h.adminQueueDrain)},
		{"POST /admin/projects/{slug}/done/requeue", h.bulk(h.adminDoneRequeue)},
		{"POST /admin/projects/{slug}/item/release", h.adminItemRelease},
		{"POST /admin/projects/{slug}/item/requeue", h.adminItemRequeue},
		{"POST /admin/projects/{slug}/item/done", h.adminItemDone},
		{"POST /admin/projects/{slug}/item/drop", h.adminItemDrop},
		{"POST /admin/projects/{slug}/claims/release", h.bulk(h.adminClaimsRelease)},
		{"POST /admin/projects/{slug}/browse/move", h.adminBrowseMove},
		{"POST /admin/projects/{slug}/browse/drop", h.adminBrowseDrop},
		{"POST /admin/projects/{slug}/browse/release", h.adminBrowseRelease},
		{"POST /admin/projects/{slug}/browse/requeue", h.adminBrowseRequeue},
		{"POST /admin/projects/{slug}/blocks/add", h.adminBlockAdd},
		{"POST /admin/projects/{slug}/blocks/remove", h.adminBlockRemove},
		{"POST /admin/projects/{slug}/sites/block", h.adminSiteBlock},
		{"POST /admin/projects/{slug}/sites/unblock", h.adminSiteUnblock},
		{"POST /admin/projects/{slug}/sites/release", h.adminSiteRelease},
		{"POST /admin/projects/{slug}/targets/add", h.adminTargetAdd},
		{"POST /admin/projects/{slug}/targets/remove", h.adminTargetRemove},
		{"POST /admin/projects/{slug}/backfeed-key", h.adminBackfeedKey},
		{"POST /admin/projects/{slug}/dictionary", h.adminDictionarySet},
		{"POST /admin/projects/{slug}/delete", h.bulk(h.adminProjectDelete)},

		// The account's own API tokens.
		{"GET /admin/account/tokens", h.adminTokens},
		{"POST /admin/account/tokens", h.adminTokenCreate},
		{"POST /admin/account/tokens/{id}/revoke", h.adminTokenRevoke},

		// The tracker's.
		{"GET /admin/jobs", h.adminJobs},
		{"POST /admin/jobs/run", h.adminJobRun},
		{"POST /admin/jobs/enable", h.adminJobEnable},
		{"POST /admin/jobs/disable", h.adminJobDisable},
		{"POST /admin/jobs/every", h.adminJobEvery},
		{"GET /admin/settings", h.adminSettingsShow},
		{"POST /admin/settings", h.adminSettingsSave},
		{"GET /admin/audit", h.adminAudit},
		{"GET /admin/users", h.adminUsers},
		{"POST /admin/users", h.adminUserCreate},
		{"POST /admin/users/{id}/password", h.adminUserPassword},
		{"POST /admin/users/{id}/role", h.adminUserRole},
		{"POST /admin/users/{id}/grant", h.adminUserGrant},
		{"POST /admin/users/{id}/revoke", h.adminUserRevoke},
		{"POST /admin/users/{id}/delete", h.adminUserDelete},

		// Anything else under /admin/: the login page for strangers, 404
		// for admins.
		{"GET /admin/", notFound},
		{"POST /admin/", notFound},
	}
}

// anyTarget answers a request for "*" (the target of a request to the
// server as a whole, which only OPTIONS may name; the server answers that
// one itself) with its reason, where ServeMux would answer a bare 400.
func anyTarget(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.RequestURI == "*" {
			writeError(w, errorf(http.StatusBadRequest, "invalid-target", "the request target * is for OPTIONS only"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// projectPagesPattern takes every GET under a project (see projectPages).
const projectPagesPattern = "GET /{project}/{rest...}"

// unrouted answers a request that no route takes: 405 with the methods its
// path takes, when another method's route has it, or the not-found page.
type unrouted struct {
	mux      *http.ServeMux
	notFound http.Handler
}

func (u unrouted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var allow []string
	pages := false // the path is only a project's page
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := u.mux.Handler(probe); pattern != "" && pattern != "/" {
			allow = append(allow, m)
			pages = pattern == projectPagesPattern
		}
	}
	if len(allow) == 1 && pages && r.Method == http.MethodPost {
		// Most likely a warrior's action misspelt (/{project}/request/):
		// a project's pages are no answer to it.
		writeError(w, errorf(http.StatusNotFound, "not-found", "not a tracker path: /{project}/{action} or /{project}/multi={N}/{action}"))
		return
	}
	if len(allow) == 0 {
		u.notFound.ServeHTTP(w, r)
		return
	}
	w.Header().Set("Allow", strings.Join(allow, ", "))
	writeErrorFor(w, r, errorf(http.StatusMethodNotAllowed, "method-not-allowed", "%s takes %s", r.URL.Path, strings.Join(allow, " or ")))
}
