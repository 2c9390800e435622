package projects_test

import (
	"strings"
	"testing"

	"tracker/projects"
)

// An upload target is one seesaw takes: rsync://…/ or http(s)://…/, with
// the trailing slash its patterns ask for (^rsync://.+/$, ^https?://.+/$).
func TestTargetURLsWarriorsTake(t *testing.T) {
	t.Parallel()
	for u, want := range map[string]string{
		"rsync://up.example/data/:downloader/": "",
		"https://up.example/upload/":           "",
		"http://up.example/":                   "",
		"rsync://up.example/data/:downloader":  `ends in "/"`,
		"https://up.example/upload?x=/":        "",
		"https://up.example/upload?x=1":        `ends in "/"`,
		"RSYNC://up.example/data/":             "in lower case",
		"ftp://up.example/data/":               "rsync://, http:// or https://",
		"/data/":                               "not an absolute URL",
	} {
		err := projects.ValidTargetURL(u)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: %v, want %q", u, err, want)
		}
	}
}
