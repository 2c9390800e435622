package handlers_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"tracker/db/dbtest"
)

// The Warriors page counts the warriors online by project and by seesaw
// version and draws them on a world map, without a nick anywhere on it;
// the gauges count the same.
func TestWarriorsPage(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	dbtest.Project(t, f.pool, "secret", "", "hidden=true")
	if _, err := f.store.SetSettings(ctx, []string{"seesaw_version=0.9.0"}); err != nil {
		t.Fatal(err)
	}
	update := func(id, nick, project, latLng, ua string) {
		t.Helper()
		req, _ := http.NewRequest("POST", f.srv.URL+"/api/update.json", strings.NewReader(
			`{"warrior": {"warrior_id": "`+id+`", "lat_lng": `+latLng+`, "downloader": "`+nick+`", "selected_project": `+project+`}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("User-Agent", ua)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("update %s: %v %v", id, resp, err)
		}
		resp.Body.Close()
	}
	const newer, older = "ArchiveTeam Warrior/0.10.3 Warrior 1", "ArchiveTeam Warrior/0.8.5 Standalone 1"
	update("w1", "nick-amsterdam", `"test"`, "[52.37, 4.89]", newer)
	update("w2", "nick-rotterdam", `"test"`, "[51.92, 4.48]", newer) // rounds to 52, 4: its own dot
	update("w3", "nick-utrecht", `"test"`, "[52.09, 5.12]", older)   // rounds to 52, 5: with w1
	update("w4", "nick-hidden", `"secret"`, "null", newer)
	update("w5", "nick-auto", `"auto"`, "[-33.87, 151.21]", newer)
	if _, err := f.pool.Exec(ctx, "INSERT INTO warriors (id, nick, selected_project, lat, lng) VALUES ('gone', 'nick-gone', 'test', 10, 10)"); err != nil {
		t.Fatal(err)
	}
	dbtest.Age(t, f.pool, 20*time.Minute, dbtest.Warriors("gone"))

	resp, err := http.Get(f.srv.URL + "/warriors/")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /warriors/: %v %v", resp, err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	page := string(body)
	if strings.Contains(page, "nick-") {
		t.Error("a nick on the Warriors page")
	}
	d, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	sel := func(s string) *goquery.Selection { return d.Find(s) }
	if got := sel("[data-testid=warriors-online]").Text(); got != "5" {
		t.Errorf("online: %q", got)
	}
	projectCounts := map[string]string{}
	sel("[data-testid=warriors-project]").Each(func(_ int, s *goquery.Selection) {
		projectCounts[s.AttrOr("data-slug", "?")] = s.Find("td.num").Text()
	})
	if projectCounts["test"] != "3" || projectCounts["auto"] != "1" || projectCounts["(other)"] != "1" || len(projectCounts) != 3 {
		t.Errorf("by project: %v", projectCounts)
	}
	if strings.Contains(page, "secret") {
		t.Error("a hidden project named on the page")
	}
	versions := map[string]bool{}
	sel("[data-testid=warriors-version]").Each(func(_ int, s *goquery.Selection) {
		versions[s.AttrOr("data-version", "?")+"="+s.Find("td.num").Text()] = s.Find("[data-testid=outdated]").Length() == 1
	})
	if outdated, ok := versions["0.8.5=1"]; !ok || !outdated || versions["0.10.3=4"] || len(versions) != 2 {
		t.Errorf("by version (outdated?): %v", versions)
	}
	svg := sel("svg[data-testid=warriors-map]")
	if svg.Length() != 1 || len(svg.Find("path[data-testid=map-land]").AttrOr("d", "")) < 10000 {
		t.Fatal("no map with the world's outline")
	}
	dots := map[string]string{}
	svg.Find("circle[data-testid=map-dot]").Each(func(_ int, s *goquery.Selection) {
		dots[s.AttrOr("cx", "")+","+s.AttrOr("cy", "")] = s.AttrOr("data-count", "")
	})
	// x = longitude + 180, y = 90 - latitude.
	want := map[string]string{"185,38": "2", "184,38": "1", "331,124": "1"}
	if len(dots) != len(want) {
		t.Errorf("dots: %v, want %v", dots, want)
	}
	for at, n := range want {
		if dots[at] != n {
			t.Errorf("dot at %s: %q warriors, want %s (dots %v)", at, dots[at], n, dots)
		}
	}

	resp, err = http.Get(f.srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	m, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, label, value string
		want               float64
	}{
		{"tracker_warriors_online", "project", "test", 3},
		{"tracker_warriors_online", "project", "auto", 1},
		{"tracker_warriors_online", "project", "(other)", 1},
		{"tracker_warriors_online_by_seesaw_version", "seesaw_version", "0.10.3", 4},
		{"tracker_warriors_online_by_seesaw_version", "seesaw_version", "0.8.5", 1},
	} {
		if v, ok := metricValue(t, string(m), tc.name, map[string]string{tc.label: tc.value}); !ok || v != tc.want {
			t.Errorf("%s{%s=%q} = %v %v, want %v", tc.name, tc.label, tc.value, v, ok, tc.want)
		}
	}
}
