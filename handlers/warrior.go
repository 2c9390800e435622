package handlers

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// warriorRoutes maps a warrior action ("request", "done", ...) to its handler.
type warriorRoutes map[string]http.Handler

// maxMultiPath bounds the N of multi={N} that the path may name; the
// project's max_multi setting then caps what is handed out.
const maxMultiPath = 10_000

// in returns a handler that answers warrior paths itself and passes every
// other request to next. Warrior paths are answered directly, never
// redirected: the clients do not follow redirects on POST.
func (routes warriorRoutes) in(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		project, action, multi, ok := parseWarriorPath(r.URL.EscapedPath())
		handler, known := routes[action]
		if !ok || !known {
			next.ServeHTTP(w, r)
			return
		}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeError(w, errorf(http.StatusMethodNotAllowed, "method-not-allowed", "%s takes POST", action))
			return
		}
		r.SetPathValue("project", project)
		r.SetPathValue("multi", strconv.Itoa(multi))
		handler.ServeHTTP(w, r)
	})
}

// itemRoute answers GET /{project}/items/{item}.json with its handler.
type itemRoute struct{ show http.Handler }

func (route itemRoute) in(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		project, rest, ok := strings.Cut(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/items/")
		if !ok || project == "" || strings.Contains(project, "/") || rest == "" {
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

// parseWarriorPath splits /{project}/{action} and /{project}/multi={N}/{action}.
// Every slash after the project may be doubled: clients append "/request" to
// a tracker URL that often ends in a slash already. multi is 0 when the path
// names none.
func parseWarriorPath(path string) (project, action string, multi int, ok bool) {
	rest, ok := strings.CutPrefix(path, "/")
	if !ok {
		return "", "", 0, false
	}
	project, rest, ok = strings.Cut(rest, "/")
	if !ok || project == "" {
		return "", "", 0, false
	}
	rest = strings.TrimPrefix(rest, "/")
	if n, after, found := strings.Cut(rest, "/"); found && strings.HasPrefix(n, "multi=") {
		v, err := strconv.Atoi(strings.TrimPrefix(n, "multi="))
		if err != nil || v < 1 || v > maxMultiPath {
			return "", "", 0, false
		}
		multi = v
		rest = strings.TrimPrefix(after, "/")
	}
	if rest == "" || strings.Contains(rest, "/") {
		return "", "", 0, false
	}
	return project, rest, multi, true
}
