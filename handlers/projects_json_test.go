package handlers_test

import (
	"context"
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"tracker/db/dbtest"
)

// What seesaw requires of the projects file, read the way it reads it
// (docs/PROTOCOL.md, "The projects file"): both rules crash warriors when
// broken.
var (
	// distutils' StrictVersion, which the warrior compares seesaw_version with.
	strictVersion = regexp.MustCompile(`^[0-9]+\.[0-9]+(\.[0-9]+)?([ab][0-9]+)?$`)
	// strptime's %Y-%m-%dT%H:%M:%SZ, written out digit for digit.
	seesawDeadline = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$`)
)

// The served file parses as seesaw parses it: a tracker nobody configured
// names a StrictVersion, every project has a name, title and description,
// and a project without a deadline leaves the key out instead of sending
// null.
func TestProjectsFileAsSeesawReadsIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	if _, err := f.store.Set(ctx, f.project, []string{"deadline=2026-12-31T23:00:00+01:00"}); err != nil {
		t.Fatal(err)
	}
	dbtest.Project(t, f.pool, "nodeadline", "")

	var file map[string]json.RawMessage
	getJSON(t, f.srv.URL+"/projects.json", nil, &file)
	var warrior struct {
		SeesawVersion *string `json:"seesaw_version"`
	}
	if err := json.Unmarshal(file["warrior"], &warrior); err != nil || warrior.SeesawVersion == nil {
		t.Fatalf("warrior %s: %v", file["warrior"], err)
	}
	if !strictVersion.MatchString(*warrior.SeesawVersion) {
		t.Errorf("seesaw_version %q is not a StrictVersion", *warrior.SeesawVersion)
	}
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(file["projects"], &list); err != nil {
		t.Fatalf("projects %s: %v", file["projects"], err)
	}
	deadlines := map[string]string{}
	for _, p := range list {
		var name string
		for _, k := range []string{"name", "title", "description"} {
			var s string
			if err := json.Unmarshal(p[k], &s); err != nil {
				t.Errorf("project %s: %s %s is not a string", p["name"], k, p[k])
			}
			if k == "name" {
				name = s
			}
		}
		raw, ok := p["deadline"]
		if !ok {
			continue
		}
		var d string
		// Unmarshal takes null for an empty string; strptime takes it for a crash.
		if err := json.Unmarshal(raw, &d); err != nil || string(raw) == "null" {
			t.Errorf("project %s: deadline %s is not a string (strptime would crash)", name, raw)
			continue
		}
		if !seesawDeadline.MatchString(d) {
			t.Errorf("project %s: deadline %q is not %%Y-%%m-%%dT%%H:%%M:%%SZ", name, d)
		}
		if _, err := time.Parse("2006-01-02T15:04:05Z", d); err != nil {
			t.Errorf("project %s: deadline %q: %v", name, d, err)
		}
		deadlines[name] = d
	}
	if len(list) != 2 {
		t.Fatalf("%d projects listed, want 2", len(list))
	}
	if len(deadlines) != 1 || deadlines["test"] != "2026-12-31T22:00:00Z" {
		t.Errorf("deadlines %v, want only test's, in UTC", deadlines)
	}
}

// Pages of other sites read the projects file as warrior-hq served it:
// any origin may fetch it, and ?callback=NAME answers it as a script
// calling NAME with the same JSON. A callback that is no JavaScript name
// is refused, and the warriors' update.json is the plain file whatever
// its query.
func TestProjectsFileForBrowsers(t *testing.T) {
	t.Parallel()
	f := setup(t)
	plain := f.do(t, "GET", "/projects.json", "")
	if plain.status != 200 || plain.header.Get("Access-Control-Allow-Origin") != "*" || !json.Valid([]byte(plain.body)) {
		t.Fatalf("projects.json: %d %v", plain.status, plain.header)
	}
	for _, name := range []string{"cb", "jQuery37100_1795829412", "angular.callbacks._0", "$", "_a$1"} {
		a := f.do(t, "GET", "/projects.json?callback="+url.QueryEscape(name), "")
		if a.status != 200 || a.header.Get("Content-Type") != "application/javascript" || a.header.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("callback %q: %d %v", name, a.status, a.header)
		}
		call := "/**/" + name + "("
		if !strings.HasPrefix(a.body, call) || !strings.HasSuffix(a.body, ");") ||
			a.body[len(call):len(a.body)-2] != plain.body {
			t.Fatalf("callback %q: %q", name, a.body)
		}
	}
	for _, name := range []string{"", "alert(1)", "1cb", "a..b", ".a", "a.", "a b", "cb;x", "<script>", "a[0]", "é", strings.Repeat("a", 129)} {
		a := f.do(t, "GET", "/projects.json?callback="+url.QueryEscape(name), "")
		if a.status != 400 || a.reason != "invalid-callback" || strings.Contains(a.body, "(") && strings.Contains(a.body, "warrior") {
			t.Errorf("callback %q: %d %q %q", name, a.status, a.reason, a.body)
		}
	}
	if a := f.do(t, "POST", "/api/update.json?callback=cb", `{"warrior":{"warrior_id":""}}`); a.status != 200 || a.body != plain.body {
		t.Fatalf("update.json with a callback: %d %q", a.status, a.body)
	}
}

// seesaw's project list indexes every project's title and description
// (all-projects.html, project_data["title"], project_data["description"])
// and escapes them as strings: both keys are always there, strings, for a
// project that was given neither, in the file and in its JSONP form.
func TestProjectsFileTitleAndDescriptionAlways(t *testing.T) {
	t.Parallel()
	f := setup(t)
	dbtest.Project(t, f.pool, "bare", "")
	plain := f.do(t, "GET", "/projects.json", "")
	script := f.do(t, "GET", "/projects.json?callback=show", "")
	if plain.status != 200 || script.status != 200 || !strings.HasPrefix(script.body, "/**/show(") {
		t.Fatalf("projects.json: %d, %d %q", plain.status, script.status, script.body)
	}
	for _, body := range []string{plain.body, strings.TrimSuffix(strings.TrimPrefix(script.body, "/**/show("), ");")} {
		var file struct {
			Projects []map[string]json.RawMessage `json:"projects"`
		}
		if err := json.Unmarshal([]byte(body), &file); err != nil || len(file.Projects) != 2 {
			t.Fatalf("projects %v: %s", err, body)
		}
		for _, p := range file.Projects {
			var name, title, description string
			if json.Unmarshal(p["name"], &name) != nil || json.Unmarshal(p["title"], &title) != nil || json.Unmarshal(p["description"], &description) != nil ||
				string(p["title"]) == "null" || string(p["description"]) == "null" {
				t.Fatalf("project %s: title %s, description %s", p["name"], p["title"], p["description"])
			}
			if name == "bare" && (title != "bare" || description != "") {
				t.Errorf("bare project: title %q, description %q", title, description)
			}
		}
	}
}
