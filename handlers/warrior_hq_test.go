package handlers_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"tracker/db/dbtest"
	"tracker/warriors"
)

// What seesaw's warrior sends to its HQ.
const warriorUA = "ArchiveTeam Warrior/0.10.3 Warrior 20260101"

// hq posts a warrior HQ call as the warrior makes it.
func (f fixture) hq(t *testing.T, path, body string) answer {
	t.Helper()
	req, err := http.NewRequest("POST", f.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", warriorUA)
	if f.from != "" {
		req.Header.Set("X-Forwarded-For", f.from)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{status: resp.StatusCode, reason: resp.Header.Get("X-Tracker-Reason"), body: string(b), header: resp.Header}
}

func (f fixture) register(t *testing.T) string {
	t.Helper()
	a := f.hq(t, "/api/register.json", `{"warrior": {"version": "0.10.3"}}`)
	if a.status != 200 || a.header.Get("Content-Type") != "application/json" {
		t.Fatalf("register: %d %q %q", a.status, a.reason, a.body)
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(a.body), &got); err != nil || len(got) != 1 {
		t.Fatalf("register answered %q", a.body)
	}
	return got["warrior_id"]
}

func (f fixture) warriorRows(t *testing.T) int64 {
	t.Helper()
	return dbtest.Count(t, f.pool, "SELECT count(*) FROM warriors")
}

func updateBody(id string) string {
	return `{"warrior": {"warrior_id": ` + jsonString(id) + `, "lat_lng": [52.3702, 4.8952], "downloader": "alice", "selected_project": "test"}}`
}

func TestWarriorHQ(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.set(t, "description=A test")
	id := f.register(t)
	if !regexp.MustCompile(`^[A-Za-z0-9_-]{20,}$`).MatchString(id) {
		t.Fatalf("warrior id %q is not an opaque URL-safe string", id)
	}

	// The answer to update.json is the projects file, byte for byte.
	file := f.do(t, "GET", "/projects.json", "")
	a := f.hq(t, "/api/update.json", updateBody(id))
	if a.status != 200 || a.body != file.body || a.header.Get("Content-Type") != "application/json" {
		t.Fatalf("update: %d %q\n%q\nwant %q", a.status, a.reason, a.body, file.body)
	}
	if !strings.Contains(a.body, `"name":"test"`) {
		t.Fatalf("projects file without the project: %s", a.body)
	}
	var lat, lng int
	var nick, version, runner, project string
	err := f.pool.QueryRow(context.Background(),
		"SELECT lat, lng, nick, seesaw_version, runner_type, selected_project FROM warriors WHERE id = $1", id).
		Scan(&lat, &lng, &nick, &version, &runner, &project)
	if err != nil || lat != 52 || lng != 5 || nick != "alice" || version != "0.10.3" || runner != "Warrior" || project != "test" {
		t.Fatalf("record: %d %d %q %q %q %q %v", lat, lng, nick, version, runner, project, err)
	}

	// The Docker warrior's empty id, an id the tracker never issued, and
	// null fields: answered with the projects file and recorded.
	for _, body := range []string{
		`{"warrior": {"warrior_id": "", "lat_lng": null, "downloader": "bob", "selected_project": null}}`,
		`{"warrior": {"warrior_id": "from-another-hq", "lat_lng": null, "downloader": "carol", "selected_project": "auto"}}`,
		`{"warrior": {"warrior_id": 7, "lat_lng": "somewhere"}}`,
		`{}`,
	} {
		if a := f.hq(t, "/api/update.json", body); a.status != 200 || a.body != file.body {
			t.Errorf("%s: %d %q %q", body, a.status, a.reason, a.body)
		}
	}
	if n := f.warriorRows(t); n != 4 {
		t.Errorf("%d records, want 4 (alice, the empty id twice as one, the unknown id)", n)
	}

	// Malformed JSON is refused with a reason.
	for _, path := range []string{"/api/register.json", "/api/update.json"} {
		if a := f.hq(t, path, `{"warrior": `); a.status != 400 || a.reason != "malformed-json" {
			t.Errorf("%s with malformed JSON: %d %q", path, a.status, a.reason)
		}
	}
}

// A flood of registrations from one address gets RegistrationsPerHour
// records, then the shared anonymous id, whose updates are answered and
// not recorded.
func TestWarriorHQRegistrationFlood(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ids := map[string]int{}
	for range warriors.RegistrationsPerHour + 5 {
		ids[f.register(t)]++
	}
	if ids[warriors.Anonymous] != 5 || len(ids) != warriors.RegistrationsPerHour+1 {
		t.Fatalf("ids: %v", ids)
	}
	if n := f.warriorRows(t); n != warriors.RegistrationsPerHour {
		t.Fatalf("%d records after the flood", n)
	}
	file := f.do(t, "GET", "/projects.json", "")
	for _, id := range []string{warriors.Anonymous, "", "never-issued"} {
		if a := f.hq(t, "/api/update.json", updateBody(id)); a.status != 200 || a.body != file.body {
			t.Errorf("update as %q: %d %q", id, a.status, a.body)
		}
	}
	if n := f.warriorRows(t); n != warriors.RegistrationsPerHour {
		t.Fatalf("%d records after updates past the limit", n)
	}
}

// A location of the wrong shape or type, or off the globe, is no location:
// the record keeps none, and no dot is drawn at 0°, 0°.
func TestWarriorHQLocationIgnored(t *testing.T) {
	t.Parallel()
	f := setup(t)
	id := f.register(t)
	location := func() (lat, lng *int16) {
		t.Helper()
		if err := f.pool.QueryRow(t.Context(), "SELECT lat, lng FROM warriors WHERE id = $1", id).Scan(&lat, &lng); err != nil {
			t.Fatal(err)
		}
		return lat, lng
	}
	update := func(latLng string) {
		t.Helper()
		body := `{"warrior": {"warrior_id": ` + jsonString(id) + `, "lat_lng": ` + latLng + `, "downloader": "alice", "selected_project": "test"}}`
		if a := f.hq(t, "/api/update.json", body); a.status != 200 {
			t.Fatalf("lat_lng %s: %d %q", latLng, a.status, a.reason)
		}
	}
	for _, bad := range []string{`["1","2"]`, `[1e999,5]`, `[91,0]`, `[0,181]`, `[1,2,3]`, `[null,4]`, `"51.5,-0.1"`} {
		update(`[40.4, -3.7]`)
		if lat, lng := location(); lat == nil || lng == nil || *lat != 40 || *lng != -4 {
			t.Fatalf("a good location stored as %v %v", lat, lng)
		}
		update(bad)
		if lat, lng := location(); lat != nil || lng != nil {
			t.Errorf("lat_lng %s stored as %d, %d", bad, *lat, *lng)
		}
	}
}
