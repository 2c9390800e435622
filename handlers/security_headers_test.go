package handlers_test

import (
	"net/http"
	"strings"
	"testing"
)

// Every answer forbids scripts but the tracker's own, and sniffing.
func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, path := range []string{"/", "/test/", "/projects.json", "/nope/"} {
		resp, err := http.Get(f.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self';") || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: CSP %q, nosniff %q", path, csp, resp.Header.Get("X-Content-Type-Options"))
		}
	}
}
