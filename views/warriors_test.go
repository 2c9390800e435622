package views

import (
	"strings"
	"testing"
)

func TestWarriors(t *testing.T) {
	v := WarriorsView{
		Online: 7, Lowest: "0.9.0", Located: 5, Now: now,
		Projects: []WarriorGroup{{Slug: "demo", Title: "Demo", Warriors: 4}, {Slug: "auto", Warriors: 2}, {Slug: "", Warriors: 1}},
		Versions: []WarriorVersion{{Version: "0.10.3", Warriors: 6}, {Version: "0.8.5", Warriors: 1, Outdated: true}},
		Places:   []WarriorPlace{{Lat: 52, Lng: 5, Warriors: 4}, {Lat: -34, Lng: 151, Warriors: 1}},
	}
	d := doc(t, Page(Site{}, "Warriors", Warriors(v)))
	if d.Find(`header.site nav a[href="/warriors/"]`).Length() != 1 {
		t.Error("no Warriors link in the site's navigation")
	}
	if got := testid(d, "warriors-online").Text(); got != "7" {
		t.Errorf("online %q", got)
	}
	rows := testid(d, "warriors-project")
	if rows.Length() != 3 || rows.Eq(0).Find(`a[href="/demo/"]`).Text() != "Demo" || !strings.Contains(rows.Eq(1).Text(), "auto") {
		t.Errorf("projects: %q", rows.Text())
	}
	versions := testid(d, "warriors-version")
	if versions.Eq(1).Find("[data-testid=outdated]").Length() != 1 || versions.Eq(0).Find("[data-testid=outdated]").Length() != 0 {
		t.Error("outdated flag on the wrong version")
	}
	m := testid(d, "warriors-map")
	if m.AttrOr("viewbox", m.AttrOr("viewBox", "")) != "0 0 360 180" {
		t.Errorf("map frame %q", m.AttrOr("viewbox", ""))
	}
	if land := testid(d, "map-land").AttrOr("d", ""); !strings.HasPrefix(land, "M") || len(land) < 10000 {
		t.Error("the world's outline is missing")
	}
	dots := testid(d, "map-dot")
	if dots.Length() != 2 || dots.Eq(0).AttrOr("cx", "") != "185" || dots.Eq(0).AttrOr("cy", "") != "38" ||
		dots.Eq(1).AttrOr("cx", "") != "331" || dots.Eq(1).AttrOr("cy", "") != "124" {
		t.Errorf("dots misplaced: %d", dots.Length())
	}
	// A crowd's dot is bigger than a lone warrior's.
	if dots.Eq(0).AttrOr("r", "") <= dots.Eq(1).AttrOr("r", "") {
		t.Errorf("dot sizes %s and %s", dots.Eq(0).AttrOr("r", ""), dots.Eq(1).AttrOr("r", ""))
	}
	if got := dots.Eq(0).Find("title").Text(); got != "4 warriors near 52° N, 5° E" {
		t.Errorf("dot title %q", got)
	}
	// Each place takes the focus, named by its count, and has the number
	// to show under the pointer or the focus; a legend says the sizes.
	places := d.Find("[data-testid=warriors-map] g.place")
	if places.Length() != 2 || places.Eq(1).AttrOr("tabindex", "") != "0" ||
		places.Eq(1).AttrOr("aria-label", "") != "1 warrior near 34° S, 151° E" || places.Eq(0).Find("text.count").Text() != "4" {
		t.Errorf("places: %d, %q", places.Length(), places.Eq(1).AttrOr("aria-label", ""))
	}
	legend := testid(d, "map-legend").Find("li")
	if legend.Length() != 3 || legend.Eq(0).Text() != "1 warrior" || legend.Eq(2).Text() != "50 warriors" {
		t.Errorf("legend %q", legend.Text())
	}
}
