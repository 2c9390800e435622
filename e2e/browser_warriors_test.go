package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// A volunteer opens the Warriors page after warriors around the world
// reported to the tracker as their HQ: the counts, the map with a dot per
// place, and no nick anywhere.
func TestBrowserWarriors(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	dir := dataDir(t)
	s := serve(t, dir)
	cli(t, "", "project", "create", "demo", "--title", "Demo project", "--data-dir", dir)
	cli(t, "", "project", "create", "other", "--title", "Another project", "--data-dir", dir)
	cli(t, "", "settings", "set", "seesaw_version=0.9.0", "--data-dir", dir)

	places := []struct {
		lat, lng float64
		project  string
		n        int
	}{
		{52.37, 4.89, "demo", 3},     // Amsterdam
		{40.71, -74.01, "demo", 2},   // New York
		{-33.87, 151.21, "other", 1}, // Sydney
		{35.68, 139.69, "auto", 2},   // Tokyo
		{-23.55, -46.63, "demo", 1},  // São Paulo
	}
	total := 0
	for i, p := range places {
		for j := range p.n {
			ua := "ArchiveTeam Warrior/0.10.3 Warrior 20260101"
			if j == 1 {
				ua = "ArchiveTeam Warrior/0.8.5 Standalone 20240101"
			}
			body := fmt.Sprintf(`{"warrior": {"warrior_id": "", "lat_lng": [%g, %g], "downloader": "secretnick%d%d", "selected_project": %q}}`,
				p.lat, p.lng, i, j, p.project)
			req, _ := http.NewRequest("POST", s.url+"/api/update.json", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("User-Agent", ua)
			resp, err := http.DefaultClient.Do(req)
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("update.json: %v %v", resp, err)
			}
			resp.Body.Close()
			total++
		}
	}

	ctx := newBrowser(t, browser)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.url+"/"), chromedp.Click(chromedp.CSS(`header.site nav a[href="/warriors/"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=warriors-map]`))); err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, ctx, `[data-testid=warriors-online]`); got != fmt.Sprint(total) {
		t.Errorf("online: %q, want %d", got, total)
	}
	dots, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("[data-testid=map-dot]").length`))
	if err != nil {
		t.Fatal(err)
	}
	if dots != len(places) {
		t.Errorf("%d dots on the map, want %d", dots, len(places))
	}
	if got := textOf(t, ctx, `[data-testid=warriors-versions]`); !strings.Contains(got, "outdated") {
		t.Errorf("no outdated version flagged: %q", got)
	}
	if got := textOf(t, ctx, `main`); strings.Contains(got, "secretnick") {
		t.Error("a nick on the Warriors page")
	}
	screenshot(t, ctx, "warriors.png")

	// On a phone the dots are still big enough to see, a place says its
	// count when it has the focus, and a legend says what the sizes mean.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(s.url+"/warriors/"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=warriors-map]`))); err != nil {
		t.Fatal(err)
	}
	if evaluate[bool](t, ctx, `document.scrollingElement.scrollWidth > window.innerWidth`) {
		t.Error("the Warriors page is wider than a phone")
	}
	if d := evaluate[float64](t, ctx, `Math.min(...[...document.querySelectorAll("[data-testid=map-dot]")].map(c => c.getBoundingClientRect().width))`); d < 6 {
		t.Errorf("the smallest dot is %.1f px across on a phone", d)
	}
	count := `document.querySelector("[data-testid=warriors-map] g.place .count")`
	if evaluate[bool](t, ctx, count+`.checkVisibility()`) {
		t.Error("a count shows before any place has the focus")
	}
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`[data-testid=warriors-map] g.place`))); err != nil {
		t.Fatal(err)
	}
	if !evaluate[bool](t, ctx, count+`.checkVisibility()`) || evaluate[float64](t, ctx, count+`.getBoundingClientRect().height`) < 10 {
		t.Error("the focused place shows no readable count")
	}
	if n := evaluate[int](t, ctx, `document.querySelectorAll("[data-testid=map-legend] li").length`); n != 3 {
		t.Errorf("%d legend entries", n)
	}
	screenshot(t, ctx, "warriors-phone-map.png")
}
