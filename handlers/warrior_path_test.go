package handlers

import (
	"strings"
	"testing"

	"tracker/projects"
)

func TestParseWarriorPath(t *testing.T) {
	t.Parallel()
	type parsed struct {
		p     warriorPath
		shape pathShape
	}
	ok := func(project, action string, multi int) parsed {
		return parsed{warriorPath{project, action, multi}, warriorPathOK}
	}
	bad := func(shape pathShape) parsed { return parsed{shape: shape} }
	for path, want := range map[string]parsed{
		"/urls/request":                ok("urls", "request", 0),
		"/urls/done":                   ok("urls", "done", 0),
		"/urls//request":               ok("urls", "request", 0),
		"/urls/multi=100//request":     ok("urls", "request", 100),
		"/urls/multi=100/request":      ok("urls", "request", 100),
		"/urls//multi=5//done":         ok("urls", "done", 5),
		"/urls/done+request":           ok("urls", "done+request", 0),
		"/urls/multi=010/request":      ok("urls", "request", 10),
		"/urls/multi=10000/request":    ok("urls", "request", 10000),
		"/urls/multi=0/request":        bad(badMulti),
		"/urls/multi=-1/request":       bad(badMulti),
		"/urls/multi=+1/request":       bad(badMulti),
		"/urls/multi=x/request":        bad(badMulti),
		"/urls/multi=/request":         bad(badMulti),
		"/urls/multi=10001/request":    bad(badMulti),
		"/urls/multi=99999999/request": bad(badMulti),
		"/urls/multi=5///request":      bad(badWarriorPath),
		"/urls///multi=5/request":      bad(badWarriorPath),
		"/urls///request":              bad(badWarriorPath),
		"/urls/multi=1/multi=2/done":   bad(badWarriorPath),
		"/urls/downloader/request":     bad(notWarriorPath),
		"/urls/a/b":                    bad(notWarriorPath),
		"/urls/":                       bad(notWarriorPath),
		"/urls":                        bad(notWarriorPath),
		"//request":                    bad(notWarriorPath),
		"/":                            bad(notWarriorPath),
		"":                             bad(notWarriorPath),
	} {
		p, shape := parseWarriorPath(path)
		if shape != want.shape || (shape == warriorPathOK && p != want.p) {
			t.Errorf("parseWarriorPath(%q) = %+v %d, want %+v %d", path, p, shape, want.p, want.shape)
		}
	}
}

func FuzzParseWarriorPath(f *testing.F) {
	for _, p := range []string{"/urls/request", "/urls/multi=100//request", "/a//b", "//", "/x/multi=0/done", "/x/multi=5///done"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, path string) {
		p, shape := parseWarriorPath(path)
		if shape == notWarriorPath {
			return
		}
		// Whatever the matcher takes it answers itself, so nothing it takes
		// may be a path ServeMux would serve: every one ends in an action
		// after only slashes and multi= segments.
		if p.project == "" || p.action == "" || strings.Contains(p.project+p.action, "/") {
			t.Fatalf("parseWarriorPath(%q) = %+v %d", path, p, shape)
		}
		if shape == warriorPathOK && (p.multi < 0 || p.multi > projects.MaxMultiLimit || strings.Contains(path, "///")) {
			t.Fatalf("parseWarriorPath(%q) = %+v, accepted", path, p)
		}
	})
}
