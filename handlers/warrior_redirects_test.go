package handlers_test

import (
	"testing"
)

// The machine routes are answered where they are asked: seesaw's Tornado
// client follows 301, 307 and 308 keeping the POST but turns a 302 or 303
// into a GET (which then fails), LuaSocket follows nothing on a POST, and
// wget asks for /now with --max-redirect 0. The paths the clients send are
// never redirected, and no path of theirs, however odd, is redirected with
// a status that loses the POST.
func TestWarriorRoutesAreNotRedirected(t *testing.T) {
	t.Parallel()
	f := setup(t, "a:1", "a:2", "a:3")
	backfeed := "/backfeed/legacy/test-" + f.project.Config.BackfeedKey
	direct := []struct{ method, path, body string }{
		{"POST", "/test/request", `{"downloader":"alice","api_version":"2"}`},
		{"POST", "/test//request", `{"downloader":"alice","api_version":"2"}`},
		{"POST", "/test/multi=2/request", `{"downloader":"alice","api_version":"2"}`},
		{"POST", "/test/multi=2//request", `{"downloader":"alice","api_version":"2"}`},
		{"POST", "/test/done", `{"downloader":"alice","item":"a:1","bytes":{"data":1}}`},
		{"POST", "/test/done+request", `{"downloader":"alice","item":"a:2","bytes":{"data":1},"api_version":"2"}`},
		{"POST", "/test/release", `{"downloader":"alice","item":"a:3"}`},
		{"POST", "/test/upload", `{"downloader":"alice","item_name":"a:1"}`},
		{"POST", "/test/uploaded", `{"uploader":"alice","item":"a:1","server":"up.example"}`},
		{"POST", "/test/request", `not json`},
		{"POST", "/nope/request", `{"downloader":"alice"}`},
		{"GET", "/test/request", ""},
		{"POST", backfeed, "b:1\x00b:2"},
		{"POST", "/backfeed/legacy/test-wrongkey", "b:3"},
		{"POST", "/api/register.json", `{"warrior":{"version":"0.10.3"}}`},
		{"POST", "/api/update.json", `{"warrior":{"warrior_id":""}}`},
		{"GET", "/now", ""},
		{"GET", "/dictionary?project=test", ""},
		{"GET", "/test/items/a:1.json", ""},
		{"GET", "/projects.json", ""},
	}
	for _, c := range direct {
		if a := f.do(t, c.method, c.path, c.body); a.status >= 300 && a.status < 400 {
			t.Errorf("%s %s: %d to %q", c.method, c.path, a.status, a.header.Get("Location"))
		}
	}
	// Paths no client sends: cleaned by a redirect at most, one that
	// keeps the method and the body.
	odd := []string{"/test/./request", "//test/request", "/test/../test/done", "/api//update.json", "//api/register.json",
		"/backfeed//legacy/test-x", "/test/request/", backfeed + "/", "/api/update.json/"}
	for _, path := range odd {
		for _, method := range []string{"POST", "GET", "PUT"} {
			if a := f.do(t, method, path, `{}`); a.status == 301 || a.status == 302 || a.status == 303 {
				t.Errorf("%s %s: %d to %q", method, path, a.status, a.header.Get("Location"))
			}
		}
	}
}
