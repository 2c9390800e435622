package handlers

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strings"

	"tracker/audit"
	"tracker/projects"
	"tracker/users"
)

// The admin API (/api/v1/, docs/API.md) is what scripts and bots do in the
// panel's stead: queue items, move and drain queues, read and set a
// project's configuration, blocks, upload targets and dictionary, release
// claims, read the audit log. It is the panel's domain calls behind JSON,
// with the same rules, as the account of an API token:
//
//   - a request is authorised by its Bearer token alone. A session cookie
//     is never read here, and the panel never reads a token, so a page of
//     another site can make a browser send nothing the API acts on (no
//     cross-site request forgery to guard against);
//   - a token acts as its account, read at each request, on the projects
//     both the account runs and the token names (all the account's when
//     it names none); a read token changes nothing;
//   - every change is in the audit log as the account's, with the token's
//     name;
//   - each token has its requests' rate (apiThrottle), and an address
//     that sends tokens that are none is turned away for a while
//     (tokenStrikes); the bulk changes
//     and the reads take turns with the panel's (admin_reads.go).
//
// openapi.yaml describes every route; a test holds the two together.

// apiPrefix starts every route of the admin API.
const apiPrefix = "/api/v1/"

// isAPIPath says whether path is one of the admin API's: its refusals are
// JSON.
func isAPIPath(path string) bool { return strings.HasPrefix(path, apiPrefix) }

// apiRoute is a route of the admin API: write says it changes something
// (a read token is refused it).
type apiRoute struct {
	pattern string
	write   bool
	fn      func(http.ResponseWriter, *http.Request) error
}

// apiRoutes are the admin API's routes behind a token; openapi.yaml
// describes each. The reads take turns in the admin reads' slots, the
// bulk changes in the bulk slots, as the panel's do.
func (h *Handler) apiRoutes() []apiRoute {
	return []apiRoute{
		{"GET /api/v1/projects/{slug}", false, h.apiProjectShow},
		{"POST /api/v1/projects/{slug}/config", true, h.apiProjectConfig},
		{"POST /api/v1/projects/{slug}/items", true, h.bulk(h.apiItemsAdd)},
		{"POST /api/v1/projects/{slug}/queues/move", true, h.bulk(h.apiQueueMove)},
		{"POST /api/v1/projects/{slug}/queues/drain", true, h.bulk(h.apiQueueDrain)},
		{"POST /api/v1/projects/{slug}/claims/release", true, h.bulk(h.apiClaimsRelease)},
		{"GET /api/v1/projects/{slug}/blocks", false, h.apiBlocks},
		{"POST /api/v1/projects/{slug}/blocks/add", true, h.apiBlockAdd},
		{"POST /api/v1/projects/{slug}/blocks/remove", true, h.apiBlockRemove},
		{"GET /api/v1/projects/{slug}/targets", false, h.apiTargets},
		{"POST /api/v1/projects/{slug}/targets/add", true, h.apiTargetAdd},
		{"POST /api/v1/projects/{slug}/targets/remove", true, h.apiTargetRemove},
		{"POST /api/v1/projects/{slug}/dictionaries", true, h.apiDictionaryAdd},
		{"GET /api/v1/audit", false, h.apiAudit},
	}
}

// apiMux is the admin API's own table, in front of the site's mux (as the
// warrior routes are): every path under /api/v1/ is answered here, in
// JSON, a path or method it has not too.
func (h *Handler) apiMux() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /api/v1/openapi.yaml", named("api", h.api(serveOpenAPIYAML)))
	mux.Handle("GET /api/v1/openapi.json", named("api", h.api(serveOpenAPIJSON)))
	for _, rt := range h.apiRoutes() {
		mux.Handle(rt.pattern, named("api", h.adminTurn(h.apiAuth(rt.write, rt.fn))))
	}
	mux.Handle("/", named("api", unrouted{mux: mux, notFound: h.api(func(http.ResponseWriter, *http.Request) error {
		return errorf(http.StatusNotFound, "not-found", "no such route of the admin API: see /api/v1/openapi.json")
	})}))
	return mux
}

// apiRouter sends the admin API's paths to its table, and every other
// path on.
type apiRouter struct{ api http.Handler }

func (a apiRouter) in(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isAPIPath(r.URL.Path) {
			a.api.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

type tokenKey struct{}

// apiToken is the token of a request that went through apiAuth.
func apiToken(r *http.Request) users.Token {
	t, _ := r.Context().Value(tokenKey{}).(users.Token)
	return t
}

// apiAuth adapts a route of the admin API: the request's Bearer token
// must be one of a live token, of write scope when write, and within its
// rate; then fn runs as the token's account (account(r), apiToken(r)),
// its changes recorded in the account's name with the token's.
func (h *Handler) apiAuth(write bool, fn func(http.ResponseWriter, *http.Request) error) http.Handler {
	return h.api(func(w http.ResponseWriter, r *http.Request) error {
		// Never cached, never framed: what the API answers only a token
		// may read.
		w.Header().Set("Cache-Control", "no-store")
		presented, ok := bearer(r)
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="tracker"`)
			return errorf(http.StatusUnauthorized, "token-required",
				"send an API token as Authorization: Bearer TOKEN (made in the admin panel under Tokens, or by tracker token create); a session cookie does not authorise the API")
		}
		addr := clientIP(r)
		if wait := h.tokenStrikes.wait(addr); wait > 0 {
			return &Error{Status: http.StatusTooManyRequests, Reason: "too-many-bad-tokens", RetryAfter: int(math.Ceil(wait.Seconds())),
				Msg: "this address sent too many tokens that are none; wait"}
		}
		// On the web pool, as the panel reads its sessions' accounts: the
		// admin reads' few connections are for the pages' turns.
		a, t, err := h.users.Authenticate(r.Context(), presented)
		switch {
		case errors.Is(err, users.ErrBadToken):
			// Guessing is slowed by address, before any token's rate.
			h.tokenStrikes.add(addr)
			w.Header().Set("WWW-Authenticate", `Bearer realm="tracker", error="invalid_token"`)
			return errorf(http.StatusUnauthorized, "invalid-token", "%v", err)
		case errors.Is(err, users.ErrRevokedToken):
			w.Header().Set("WWW-Authenticate", `Bearer realm="tracker", error="invalid_token"`)
			return errorf(http.StatusUnauthorized, "token-revoked", "%v", err)
		case errors.Is(err, users.ErrNoUser):
			// The account went between the two reads.
			return errorf(http.StatusUnauthorized, "invalid-token", "%v", users.ErrBadToken)
		case err != nil:
			return err
		}
		if wait, ok := h.apiThrottle.allow(t.ID); !ok {
			return &Error{Status: http.StatusTooManyRequests, Reason: "token-throttled", RetryAfter: wait,
				Msg: "this token sends requests faster than its rate; slow down"}
		}
		if write && !t.CanWrite() {
			return errorf(http.StatusForbidden, "read-only-token", "token %q may only read", t.Name)
		}
		ctx := context.WithValue(r.Context(), accountKey{}, a)
		ctx = context.WithValue(ctx, tokenKey{}, t)
		ctx = audit.NewContext(ctx, audit.Actor{UserID: a.ID, Username: a.Username, IP: clientIP(r), Token: t.Name})
		return fn(w, r.WithContext(ctx))
	})
}

// bearer is the token of r's Authorization header.
func bearer(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// apiProject is the project of the route's {slug}, refused unless the
// token's account runs it and the token covers it.
func (h *Handler) apiProject(r *http.Request) (projects.Project, error) {
	p, err := h.adminProject(r)
	if err != nil {
		return p, err
	}
	if t := apiToken(r); !t.Covers(p.ID) {
		return p, errorf(http.StatusForbidden, "forbidden", "token %q does not cover project %s", t.Name, p.Slug)
	}
	return p, nil
}

// apiGlobal refuses what only a global admin does (a block on every
// project, the whole audit log) to any other account, and to a token
// limited to some projects.
func apiGlobal(r *http.Request) error {
	if err := globalOnly(r); err != nil {
		return err
	}
	if t := apiToken(r); !t.AllProjects() {
		return errorf(http.StatusForbidden, "forbidden", "token %q is limited to some projects", t.Name)
	}
	return nil
}
