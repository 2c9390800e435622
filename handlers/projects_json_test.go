package handlers_test

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"
	"time"
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
	if _, err := f.store.Create(ctx, "nodeadline", ""); err != nil {
		t.Fatal(err)
	}

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
