package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"tracker/static"
)

// Every script and stylesheet a page loads comes by a URL with its file's
// fingerprint, which browsers may keep for good; the same file asked for
// without it, or by another binary's fingerprint (a page loaded before an
// upgrade), is kept an hour.
func TestStaticFilesByFingerprint(t *testing.T) {
	t.Parallel()
	f := setup(t)
	loaded := 0
	for _, path := range []string{"/", "/test/", "/warriors/"} {
		status, doc := f.page(t, path)
		if status != 200 {
			t.Fatalf("%s: %d", path, status)
		}
		for _, sel := range []string{"script[src]", "link[href]"} {
			for _, n := range doc.Find(sel).Nodes {
				var url string
				for _, a := range n.Attr {
					if a.Key == "src" || a.Key == "href" {
						url = a.Val
					}
				}
				if !strings.HasPrefix(url, "/static/") {
					continue
				}
				loaded++
				name := strings.TrimPrefix(url[:strings.Index(url+"?", "?")], "/static/")
				if url != static.URL(name) || static.Version(name) == "" {
					t.Errorf("%s loads %s, not by its fingerprint (%s)", path, url, static.URL(name))
				}
				if a := f.do(t, "GET", url, ""); a.status != 200 || a.header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
					t.Errorf("%s: %d, Cache-Control %q", url, a.status, a.header.Get("Cache-Control"))
				}
			}
		}
	}
	if loaded < 4 {
		t.Fatalf("the pages load %d files from /static/", loaded)
	}
	for _, url := range []string{"/static/style.css", "/static/style.css?v=000000000000"} {
		if a := f.do(t, "GET", url, ""); a.status != http.StatusOK || a.header.Get("Cache-Control") != "public, max-age=3600" {
			t.Errorf("%s: %d, Cache-Control %q", url, a.status, a.header.Get("Cache-Control"))
		}
	}
}
