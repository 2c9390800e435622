package handlers

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"tracker/projects"
)

// warriorRoutes maps a warrior action ("request", "done", ...) to its handler.
type warriorRoutes map[string]http.Handler

// multiKey carries the N of a warrior path's multi={N} to its handler as
// the number the path's matcher checked (0: the path names none), not as
// text for the handler to parse again.
type multiKey struct{}

// pathMulti is the N of the request's multi={N}, 0 when its path names
// none.
func pathMulti(r *http.Request) int {
	n, _ := r.Context().Value(multiKey{}).(int)
	return n
}

// in returns a handler that answers warrior paths itself and passes every
// other request to next. Warrior paths are answered directly, never
// redirected: the clients do not follow redirects on POST, and ServeMux
// would redirect any path with a doubled slash. A path shaped like a
// warrior path that is not a valid one is refused here for the same
// reason: 400 for a bad multi={N}, 404 for anything else.
func (routes warriorRoutes) in(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, shape := parseWarriorPath(r.URL.EscapedPath())
		handler, known := routes[p.action]
		switch {
		case shape == notWarriorPath || !known:
			next.ServeHTTP(w, r)
			return
		case shape == badMulti:
			writeError(w, errorf(http.StatusBadRequest, "invalid-multi", "multi={N} takes N from 1 to %d", projects.MaxMultiLimit))
			return
		case shape == badWarriorPath:
			writeError(w, errorf(http.StatusNotFound, "not-found", "not a tracker path: /{project}/{action} or /{project}/multi={N}/{action}"))
			return
		}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeError(w, errorf(http.StatusMethodNotAllowed, "method-not-allowed", "%s takes POST", p.action))
			return
		}
		r.SetPathValue("project", p.project)
		handler.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), multiKey{}, p.multi)))
	})
}

// itemRoute answers GET /{project}/items/{item}.json with its handler.
type itemRoute struct{ show http.Handler }

func (route itemRoute) in(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		project, rest, ok := itemPath(r)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		item, err := url.PathUnescape(rest)
		if err != nil {
			writeError(w, errorf(http.StatusBadRequest, "invalid-item", "bad escape in the item name"))
			return
		}
		r.SetPathValue("project", project)
		r.SetPathValue("item", item)
		route.show.ServeHTTP(w, r)
	})
}

// itemPath splits the escaped path of a GET /{project}/items/{item}.json
// into the project and the item's escaped name (".json" still on).
func itemPath(r *http.Request) (project, rest string, ok bool) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return "", "", false
	}
	project, rest, ok = strings.Cut(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/items/")
	if !ok || project == "" || strings.Contains(project, "/") || rest == "" {
		return "", "", false
	}
	return project, rest, true
}

// warriorPath is what a warrior path names. multi is 0 when the path
// names none.
type warriorPath struct {
	project, action string
	multi           int
}

// pathShape says whether a path is a warrior path.
type pathShape int

const (
	// notWarriorPath is any other route's path.
	notWarriorPath pathShape = iota
	// warriorPathOK is /{project}/{action} or /{project}/multi={N}/{action}.
	warriorPathOK
	// badMulti is a warrior path whose N is not a number from 1 to
	// projects.MaxMultiLimit.
	badMulti
	// badWarriorPath ends in an action after nothing but slashes and
	// multi= segments, but not in a form the clients send (three slashes,
	// two multi= segments).
	badWarriorPath
)

// parseWarriorPath splits /{project}/{action} and /{project}/multi={N}/{action}.
// Each slash after the project may be doubled: clients append "/request" to
// a tracker URL that often ends in a slash already. Whether the action is
// one the tracker serves is the caller's to check.
func parseWarriorPath(path string) (warriorPath, pathShape) {
	rest, ok := strings.CutPrefix(path, "/")
	if !ok {
		return warriorPath{}, notWarriorPath
	}
	segs := strings.Split(rest, "/")
	if len(segs) < 2 || segs[0] == "" || segs[len(segs)-1] == "" {
		return warriorPath{}, notWarriorPath
	}
	p := warriorPath{project: segs[0], action: segs[len(segs)-1]}
	// Between project and action: empty segments (doubled slashes) and
	// multi= segments only, or it is some other route's path, such as a
	// downloader's page.
	var multis []string
	for _, s := range segs[1 : len(segs)-1] {
		if s != "" && !strings.HasPrefix(s, "multi=") {
			return warriorPath{}, notWarriorPath
		}
		if s != "" {
			multis = append(multis, s)
		}
	}
	middle := segs[1 : len(segs)-1]
	switch {
	case len(multis) == 0 && len(middle) <= 1:
		return p, warriorPathOK
	case len(multis) == 1 && validMultiSlashes(middle):
		n, ok := parseMulti(strings.TrimPrefix(multis[0], "multi="))
		if !ok {
			return p, badMulti
		}
		p.multi = n
		return p, warriorPathOK
	}
	return p, badWarriorPath
}

// validMultiSlashes says whether the segments between project and action
// hold the one multi= segment with at most one doubled slash on either side.
func validMultiSlashes(middle []string) bool {
	before, after := 0, 0
	seen := false
	for _, s := range middle {
		switch {
		case s != "":
			seen = true
		case seen:
			after++
		default:
			before++
		}
	}
	return before <= 1 && after <= 1
}

// parseMulti reads N of multi={N}: plain decimal digits, 1 to
// projects.MaxMultiLimit; the project's max_multi then caps what is handed
// out.
func parseMulti(s string) (int, bool) {
	if s == "" || len(s) > 9 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 1 && n <= projects.MaxMultiLimit
}

// warriorCall reads what every warrior call starts with: its project, then
// its JSON body, at most limit bytes, read once the body has its share of
// the warrior calls' budget. The project comes first, so a call to a
// project that is not there is 404 whatever its body. The caller calls
// release once it no longer holds the body.
func warriorCall[B any](h *Handler, w http.ResponseWriter, r *http.Request, limit int64) (live *projects.Live, body B, release func(), err error) {
	if live, err = h.project(r); err != nil {
		return nil, body, nil, err
	}
	if release, err = h.bodies.warrior.reserve(r, limit); err != nil {
		return nil, body, nil, err
	}
	if err := decodeJSON(w, r, limit, &body); err != nil {
		release()
		return nil, body, nil, err
	}
	return live, body, release, nil
}
