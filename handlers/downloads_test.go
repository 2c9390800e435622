package handlers_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tracker/handlers"
	"tracker/projects"
)

// downloadsOn starts a tracker on f's database that serves dir at
// /downloads/.
func (f fixture) downloadsOn(t *testing.T, dir string) fixture {
	t.Helper()
	return f.serve(t, io.Discard, nil, func(c *handlers.Config) { c.Downloads = dir })
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The downloads folder: what the operator put there is served and listed,
// the network check file is built in whatever the folder holds (even with
// no folder at all), and nothing outside the folder can be reached: not
// by "..", not by a link leading out, not a hidden file.
func TestDownloadsServeTheFolderAndNothingElse(t *testing.T) {
	t.Parallel()
	f := setup(t)
	base := t.TempDir()
	dir := filepath.Join(base, "downloads")
	writeFile(t, filepath.Join(dir, "warrior4.ova"), "an appliance")
	writeFile(t, filepath.Join(dir, "sub", "notes.txt"), "notes")
	writeFile(t, filepath.Join(dir, ".htpasswd"), "secret")
	writeFile(t, filepath.Join(dir, "network_check", "hello.html"), "not what warrior4 wants")
	writeFile(t, filepath.Join(base, "secret.txt"), "outside")
	if err := os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(dir, "out.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("warrior4.ova", filepath.Join(dir, "latest.ova")); err != nil {
		t.Fatal(err)
	}
	s := f.downloadsOn(t, dir)

	for path, body := range map[string]string{
		"/downloads/warrior4.ova":             "an appliance",
		"/downloads/latest.ova":               "an appliance",
		"/downloads/sub/notes.txt":            "notes",
		"/downloads/network_check/hello.html": "<html><head></head><body>Hello.</body></html>\n",
	} {
		if a := s.do(t, "GET", path, ""); a.status != 200 || a.body != body {
			t.Errorf("%s: %d %q, want %q", path, a.status, a.body, body)
		}
	}
	for _, path := range []string{"/downloads/out.txt", "/downloads/.htpasswd", "/downloads/sub/..%2f..%2fsecret.txt",
		"/downloads/%2e%2e/secret.txt", "/downloads/sub/%2e%2e/%2e%2e/secret.txt", "/downloads/nothing", "/downloads/warrior4.ova/"} {
		if a := s.do(t, "GET", path, ""); a.status != 404 {
			t.Errorf("%s: %d %q", path, a.status, a.body)
		}
	}
	// A path that leaves the folder is cleaned first (ServeMux redirects
	// it): it never reaches what is outside.
	for _, path := range []string{"/downloads/../secret.txt", "/downloads/sub/../../secret.txt"} {
		if a := s.do(t, "GET", path, ""); a.status == 200 || strings.Contains(a.body, "outside") {
			t.Errorf("%s: %d %q", path, a.status, a.body)
		}
	}

	a := s.do(t, "GET", "/downloads/", "")
	if a.status != 200 || a.header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("the listing: %d %q", a.status, a.reason)
	}
	for _, want := range []string{`<a href="network_check/">network_check/</a>`, `<a href="sub/">sub/</a>`,
		`<a href="latest.ova">latest.ova</a>`, `<a href="warrior4.ova">warrior4.ova</a>`} {
		if !strings.Contains(a.body, want) {
			t.Errorf("the listing has no %s:\n%s", want, a.body)
		}
	}
	for _, not := range []string{"out.txt", "htpasswd"} {
		if strings.Contains(a.body, not) {
			t.Errorf("the listing names %s:\n%s", not, a.body)
		}
	}
	a = s.do(t, "GET", "/downloads/network_check/", "")
	if a.status != 200 || !strings.Contains(a.body, `<a href="hello.html">hello.html</a>`) || !strings.Contains(a.body, " 46\r\n") {
		t.Errorf("network_check's listing, its file the built-in one:\n%s", a.body)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(s.srv.URL + "/downloads/sub")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "/downloads/sub/" {
		t.Errorf("a folder without its slash: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}

	// No project can take the folder's path.
	if projects.ValidSlug("downloads") == nil {
		t.Error("a project may be called downloads")
	}

	// With no folder at all, the check file and its folder are there.
	bare := f.downloadsOn(t, filepath.Join(base, "missing"))
	if a := bare.do(t, "GET", "/downloads/network_check/hello.html", ""); a.status != 200 || a.body != "<html><head></head><body>Hello.</body></html>\n" {
		t.Errorf("the check file without a folder: %d %q", a.status, a.body)
	}
	if a := bare.do(t, "GET", "/downloads/", ""); a.status != 200 || !strings.Contains(a.body, `<a href="network_check/">`) {
		t.Errorf("the listing without a folder: %d %q", a.status, a.body)
	}
}

// A folder of many files is listed to a bound: the first ones in order,
// and a line saying how many more there are.
func TestDownloadsListingIsBounded(t *testing.T) {
	t.Parallel()
	f := setup(t)
	dir := t.TempDir()
	for i := range 1005 {
		writeFile(t, filepath.Join(dir, "many", fmt.Sprintf("file-%04d", i)), "x")
	}
	s := f.downloadsOn(t, dir)
	a := s.do(t, "GET", "/downloads/many/", "")
	if a.status != 200 || strings.Count(a.body, "<a href=") != 1+1000 || !strings.Contains(a.body, "file-0999") ||
		strings.Contains(a.body, "file-1000") || !strings.Contains(a.body, "(5 more not listed)") {
		t.Errorf("1,005 files listed: %d, %d links\n%s", a.status, strings.Count(a.body, "<a href="), a.body[len(a.body)-300:])
	}
}
