package handlers

import (
	"net/http"
	"strings"
)

// projectPages routes GET /{project}/{rest...} by rest: an exact name, a
// name ending in "/" for a prefix whose remainder becomes the path value
// "nick" (downloader/{nick}), or such a prefix and "{nick}.json" for a
// remainder ending in ".json" (downloader/{nick}.json, ".json" still on).
// Anything else gets notFound.
type projectPages struct {
	routes   map[string]http.Handler
	notFound http.Handler
}

func (pp projectPages) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest := r.PathValue("rest")
	if h, ok := pp.routes[rest]; ok {
		h.ServeHTTP(w, r)
		return
	}
	if prefix, nick, ok := strings.Cut(rest, "/"); ok && nick != "" && !strings.Contains(nick, "/") {
		h, ok := pp.routes[prefix+"/{nick}.json"]
		if !ok || !strings.HasSuffix(nick, ".json") {
			h, ok = pp.routes[prefix+"/"]
		}
		if ok {
			r.SetPathValue("nick", nick)
			h.ServeHTTP(w, r)
			return
		}
	}
	pp.notFound.ServeHTTP(w, r)
}

func notFound(http.ResponseWriter, *http.Request) error {
	return errorf(http.StatusNotFound, "not-found", "there is no such page")
}
