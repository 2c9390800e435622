package handlers_test

import (
	"encoding/json"
	"math"
	"net/http"
	"testing"

	"tracker/db/dbtest"
)

// Warrior HQ's own GET /stats.json and /positions.json (warrior-hq's
// app.rb): the warriors online by the project they picked, most first, as
// [project, count] pairs with null for none, a point for each located
// warrior spread within half a degree of its place; and the places alone,
// in whole degrees. Readable from any site.
func TestHQStatsAndPositions(t *testing.T) {
	t.Parallel()
	f := setup(t)
	dbtest.Project(t, f.pool, "hushhush", "Hush hush", "hidden=true")
	for _, w := range []string{
		`{"warrior": {"warrior_id": "w5", "downloader": "erin", "selected_project": "hushhush"}}`,
		`{"warrior": {"warrior_id": "w1", "downloader": "alice", "selected_project": "test", "lat_lng": [52.37, 4.89]}}`,
		`{"warrior": {"warrior_id": "w2", "downloader": "bob", "selected_project": "test", "lat_lng": [52.4, 4.6]}}`,
		`{"warrior": {"warrior_id": "w3", "downloader": "carol", "selected_project": "auto", "lat_lng": [-33.9, 151.2]}}`,
		`{"warrior": {"warrior_id": "w4", "downloader": "dave"}}`,
	} {
		if a := f.hq(t, "/api/update.json", w); a.status != 200 {
			t.Fatalf("update: %d %s", a.status, a.body)
		}
	}

	a := f.do(t, "GET", "/stats.json", "")
	if a.status != 200 || a.header.Get("Content-Type") != "application/json" || a.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("/stats.json: %d %q %q %v", a.status, a.reason, a.body, a.header)
	}
	var stats struct {
		Projects [][2]any     `json:"projects"`
		Coords   [][2]float64 `json:"coords"`
	}
	if err := json.Unmarshal([]byte(a.body), &stats); err != nil {
		t.Fatalf("/stats.json: %v: %s", err, a.body)
	}
	// A hidden project is not named.
	want := [][2]any{{"test", 2.0}, {nil, 1.0}, {"(other)", 1.0}, {"auto", 1.0}}
	if len(stats.Projects) != len(want) {
		t.Fatalf("projects: %v, want %v", stats.Projects, want)
	}
	for i := range want {
		if stats.Projects[i] != want[i] {
			t.Errorf("projects: %v, want %v", stats.Projects, want)
		}
	}
	// Each point within half a degree of its place: two at 52°N 5°E, one
	// at 34°S 151°E.
	near := map[[2]float64]int{}
	for _, c := range stats.Coords {
		for _, at := range [][2]float64{{52, 5}, {-34, 151}} {
			if math.Abs(c[0]-at[0]) <= 0.5 && math.Abs(c[1]-at[1]) <= 0.5 {
				near[at]++
			}
		}
	}
	if len(stats.Coords) != 3 || near[[2]float64{52, 5}] != 2 || near[[2]float64{-34, 151}] != 1 {
		t.Errorf("coords: %v", stats.Coords)
	}

	a = f.do(t, "GET", "/positions.json", "")
	if a.status != 200 || a.body != "[[52,5],[52,5],[-34,151]]" || a.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("/positions.json: %d %q %q", a.status, a.reason, a.body)
	}
	if a := f.do(t, "POST", "/stats.json", ""); a.status != http.StatusMethodNotAllowed {
		t.Errorf("POST /stats.json: %d", a.status)
	}
}
