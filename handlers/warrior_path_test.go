package handlers

import (
	"strings"
	"testing"
)

func TestParseWarriorPath(t *testing.T) {
	t.Parallel()
	type parsed struct {
		project, action string
		multi           int
		ok              bool
	}
	for path, want := range map[string]parsed{
		"/urls/request":                {"urls", "request", 0, true},
		"/urls/done":                   {"urls", "done", 0, true},
		"/urls//request":               {"urls", "request", 0, true},
		"/urls/multi=100//request":     {"urls", "request", 100, true},
		"/urls/multi=100/request":      {"urls", "request", 100, true},
		"/urls//multi=5//done":         {"urls", "done", 5, true},
		"/urls/done+request":           {"urls", "done+request", 0, true},
		"/urls/multi=0/request":        {ok: false},
		"/urls/multi=-1/request":       {ok: false},
		"/urls/multi=x/request":        {ok: false},
		"/urls/multi=99999999/request": {ok: false},
		"/urls/multi=5///request":      {ok: false},
		"/urls/a/b":                    {ok: false},
		"/urls/":                       {ok: false},
		"/urls":                        {ok: false},
		"//request":                    {ok: false},
		"/":                            {ok: false},
		"":                             {ok: false},
	} {
		p, a, m, ok := parseWarriorPath(path)
		if got := (parsed{p, a, m, ok}); ok != want.ok || (ok && got != want) {
			t.Errorf("parseWarriorPath(%q) = %+v, want %+v", path, got, want)
		}
	}
}

func FuzzParseWarriorPath(f *testing.F) {
	for _, p := range []string{"/urls/request", "/urls/multi=100//request", "/a//b", "//", "/x/multi=0/done"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, path string) {
		project, action, multi, ok := parseWarriorPath(path)
		if !ok {
			return
		}
		if project == "" || action == "" || strings.Contains(project+action, "/") || multi < 0 || multi > maxMultiPath {
			t.Fatalf("parseWarriorPath(%q) = %q %q %d", path, project, action, multi)
		}
	})
}
