package handlers_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"tracker/users"
)

// seesawFile is what a warrior reads of the projects file.
type seesawFile struct {
	AutoProject *string `json:"auto_project"`
	Projects    []struct {
		Name string `json:"name"`
	} `json:"projects"`
}

// seesawSelects is what seesaw's warrior runs after one update from its
// HQ (update_warrior_hq in seesaw/warrior.py): a running project that left
// the list is stopped; else the project chosen in its settings runs if
// listed; else, on "auto", the file's auto_project if listed (none when it
// is null or not listed); else what ran goes on.
func seesawSelects(f seesawFile, chosen, running string) string {
	listed := func(name string) bool {
		return slices.ContainsFunc(f.Projects, func(p struct {
			Name string `json:"name"`
		}) bool {
			return p.Name == name
		})
	}
	switch {
	case running != "" && !listed(running):
		return ""
	case listed(chosen):
		return chosen
	case chosen == "auto":
		if f.AutoProject != nil && listed(*f.AutoProject) {
			return *f.AutoProject
		}
		return ""
	}
	return running
}

// What each state of a project answers and lists (docs/PROTOCOL.md,
// "Project states"): a finished project leaves the projects file and is
// never its auto_project, so warriors running it stop and those on "auto"
// move to the auto project; it hands out nothing (404 finished) but takes
// what warriors still report. A paused one stays listed, so warriors that
// chose it keep it and resume by themselves, but is no auto project: those
// on "auto" move on.
func TestProjectStates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		state string
		// listed: in /projects.json and update.json; auto: auto_project
		// still names it.
		listed, auto bool
		// request's and done's answers.
		request, done, backfeed, page int
		reason                        string
		// What a warrior that chose the project, and one on "auto" whose
		// auto project it was, run after two updates (the auto project
		// then being "other").
		chosen, onAuto string
	}{
		{"open", true, true, 200, 200, 200, 200, "", "test", "test"},
		{"paused", true, false, 404, 200, 200, 200, "paused", "test", "other"},
		{"finished", false, false, 404, 200, 200, 200, "finished", "", "other"},
		{"hidden", false, false, 200, 200, 200, 200, "", "", "other"},
		{"deleted", false, false, 404, 404, 404, 404, "unknown-project", "", "other"},
	} {
		t.Run(tc.state, func(t *testing.T) {
			t.Parallel()
			f := setup(t, "a:1", "a:2", "a:3")
			other, err := f.store.Create(ctx, "other", "Other")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.store.SetSettings(ctx, []string{"auto_project=test"}); err != nil {
				t.Fatal(err)
			}
			held, _ := f.request(t, "alice", 1) // a warrior at work when the state changes
			switch tc.state {
			case "paused":
				f.set(t, "paused=true")
			case "finished":
				f.set(t, "finished=true")
			case "hidden":
				f.set(t, "hidden=true")
			case "deleted":
				if err := f.store.MarkDeleting(ctx, f.project); err != nil {
					t.Fatal(err)
				}
			}

			file := f.do(t, "GET", "/projects.json", "")
			hq := f.do(t, "POST", "/api/update.json", `{"warrior":{"warrior_id":"","selected_project":"auto"}}`)
			if file.status != 200 || hq.status != 200 || hq.body != file.body {
				t.Fatalf("projects file %d, update.json %d: %q, %q", file.status, hq.status, file.body, hq.body)
			}
			var doc seesawFile
			if err := json.Unmarshal([]byte(file.body), &doc); err != nil {
				t.Fatal(err)
			}
			names := []string{}
			for _, p := range doc.Projects {
				names = append(names, p.Name)
			}
			if slices.Contains(names, "test") != tc.listed || !slices.Contains(names, "other") {
				t.Errorf("listed %v", names)
			}
			if auto := doc.AutoProject != nil && *doc.AutoProject == "test"; auto != tc.auto || !tc.auto && doc.AutoProject != nil {
				t.Errorf("auto_project %v", doc.AutoProject)
			}

			if _, a := f.request(t, "bob", 1); a.status != tc.request || a.reason != tc.reason {
				t.Errorf("request: %d %q, want %d %q", a.status, a.reason, tc.request, tc.reason)
			}
			if a := f.do(t, "POST", "/test/done", `{"downloader":"alice","item":`+jsonString(held[0])+`,"bytes":{"data":1}}`); a.status != tc.done {
				t.Errorf("done of an item out: %d %s", a.status, a.reason)
			}
			if a := f.doBody(t, "POST", "/backfeed/legacy/test-"+f.project.Config.BackfeedKey, "text/plain", "b:1"); a.status != tc.backfeed {
				t.Errorf("backfeed: %d %s", a.status, a.reason)
			}
			if a := f.do(t, "GET", "/test/stats.json", ""); a.status != tc.page {
				t.Errorf("stats.json: %d %s", a.status, a.reason)
			}

			// The warriors: one chose the project, one is on auto. The
			// admin moves the auto project to "other" (what seesaw then
			// does, it does by itself).
			if !tc.auto {
				if _, err := f.store.SetSettings(ctx, []string{"auto_project=" + other.Slug}); err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal([]byte(f.do(t, "POST", "/api/update.json", `{"warrior":{}}`).body), &doc); err != nil {
					t.Fatal(err)
				}
			}
			chosen, onAuto := "test", "test"
			for range 2 {
				chosen, onAuto = seesawSelects(doc, "test", chosen), seesawSelects(doc, "auto", onAuto)
			}
			if chosen != tc.chosen || onAuto != tc.onAuto {
				t.Errorf("warriors run %q (chose it) and %q (on auto), want %q and %q", chosen, onAuto, tc.chosen, tc.onAuto)
			}
		})
	}
}

// A finished project's admin is told, on the settings page, that it is
// still the auto project and warriors on auto therefore run nothing.
func TestAutoProjectNotListedWarned(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.user(t, "root", users.RoleAdmin)
	c := f.adminClient(t)
	c.login(t, "root", "correct horse battery")
	if _, err := f.store.SetSettings(context.Background(), []string{"auto_project=test"}); err != nil {
		t.Fatal(err)
	}
	if a := c.get(t, "/admin/settings"); strings.Contains(a.body, `data-testid="auto-project-warning"`) {
		t.Fatal("a warning for an auto project that runs")
	}
	f.set(t, "finished=true")
	if a := c.get(t, "/admin/settings"); !strings.Contains(a.body, `data-testid="auto-project-warning"`) {
		t.Fatalf("no warning for a finished auto project: %d", a.status)
	}
}

// The admin panel tells a project's state as the public pages do: the
// project's pages (their header) and the list of projects say finished,
// paused or running, and hidden when it is.
func TestAdminProjectStates(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		set    []string
		state  string
		hidden bool
	}{
		{"running", nil, "running", false},
		{"paused", []string{"paused=true"}, "paused", false},
		{"finished", []string{"finished=true"}, "finished", false},
		{"finished while paused", []string{"paused=true", "finished=true"}, "finished", false},
		{"hidden", []string{"hidden=true"}, "running", true},
		{"hidden and paused", []string{"hidden=true", "paused=true"}, "paused", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := setup(t, "a:1")
			c := f.admin(t)
			if tc.set != nil {
				f.set(t, tc.set...)
			}
			for _, page := range []struct{ path, scope string }{
				{"/admin/projects/test/", "h1"},
				{"/admin/projects/test/queues", "h1"},
				{"/admin/", `[data-testid="admin-project-state"]`},
			} {
				a := c.get(t, page.path)
				doc, err := goquery.NewDocumentFromReader(strings.NewReader(a.body))
				if err != nil || a.status != 200 {
					t.Fatalf("%s: %d %v", page.path, a.status, err)
				}
				scope := doc.Find(page.scope)
				if got := strings.TrimSpace(scope.Find(`[data-testid="state"]`).Text()); got != tc.state {
					t.Errorf("%s: state %q, want %q", page.path, got, tc.state)
				}
				if got := scope.Find(`[data-testid="state-hidden"]`).Length() == 1; got != tc.hidden {
					t.Errorf("%s: hidden shown %v, want %v", page.path, got, tc.hidden)
				}
			}
		})
	}
}
