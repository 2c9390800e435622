package handlers

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// ParsePublicURL reads an http(s) URL without query or fragment, such as
// https://tracker.example.org or https://example.org/tracker, and returns
// it without its trailing slash. Empty stays empty.
func ParsePublicURL(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return "", fmt.Errorf("%q is not an http(s) URL of a host and maybe a path", s)
	}
	return strings.TrimSuffix(u.String(), "/"), nil
}

// baseURL is the address clients reach this tracker at: the public URL
// when one is set, else the request's Host header and scheme (a trusted
// proxy's X-Forwarded-Proto names it). Made from the request, it is
// whatever the client says, so the answer says it varies on them, and
// writeCached keeps such an answer out of shared caches: a cache keyed on
// the path alone would hand one client's host to everyone.
func (h *Handler) baseURL(w http.ResponseWriter, r *http.Request) string {
	if h.publicURL != "" {
		return h.publicURL
	}
	w.Header().Add("Vary", "Host")
	w.Header().Add("Vary", "X-Forwarded-Proto")
	scheme := "http"
	if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
