package views

import (
	"fmt"
	"math"
	"time"

	"github.com/a-h/templ"

	"tracker/static"
)

// WarriorsView is the Warriors page: the warriors online now (a contact
// within the last quarter of an hour) and where they are, never who.
type WarriorsView struct {
	Site   Site
	Online int64
	// Projects counts by selected project, most first.
	Projects []WarriorGroup
	// Versions counts by seesaw version, newest first.
	Versions []WarriorVersion
	// Lowest is the lowest seesaw version the tracker asks for.
	Lowest string
	// Places are the located warriors by whole degree.
	Places []WarriorPlace
	// Located is how many of the online warriors sent a location.
	Located int64
	Now     time.Time
}

// WarriorGroup is the count of warriors that chose one project.
type WarriorGroup struct {
	// Slug is the project's, "auto", "" for none chosen, or "(other)" for
	// a project this tracker does not list.
	Slug     string
	Title    string
	Warriors int64
}

// WarriorVersion is the count of warriors running one seesaw version.
type WarriorVersion struct {
	Version  string // "" when the warriors named none
	Warriors int64
	Outdated bool
}

// WarriorPlace is a spot on the map: whole degrees and a count.
type WarriorPlace struct {
	Lat, Lng int
	Warriors int64
}

// The map's frame: one unit per degree, equirectangular, as the outline
// (static.LandPath) is drawn.
const (
	mapWidth  = 360
	mapHeight = 180
)

func landPath() string { return static.LandPath }

func mapX(p WarriorPlace) string { return fmt.Sprint(p.Lng + 180) }
func mapY(p WarriorPlace) string { return fmt.Sprint(90 - p.Lat) }

// mapRadius sizes a dot so its area grows with its count: a lone warrior
// is still seen, a crowd does not cover a continent.
func mapRadius(n int64) string {
	r := min(1.5*math.Sqrt(float64(max(n, 1))), 10)
	return fmt.Sprintf("%.1f", r)
}

// legendSize sizes a legend's dot as the map draws one of n warriors:
// the map is mapWidth units across its figure (style.css scales both
// alike on a phone).
func legendSize(n int64) templ.SafeCSS {
	return templ.SafeCSS("--r:" + mapRadius(n))
}

// placeName is a place's whole degrees: "52° N, 5° E".
func placeName(p WarriorPlace) string {
	ns, ew := "N", "E"
	lat, lng := p.Lat, p.Lng
	if lat < 0 {
		ns, lat = "S", -lat
	}
	if lng < 0 {
		ew, lng = "W", -lng
	}
	return fmt.Sprintf("%d° %s, %d° %s", lat, ns, lng, ew)
}

func warriorsLabel(n int64) string {
	if n == 1 {
		return "1 warrior"
	}
	return FormatInt(n) + " warriors"
}

func groupLabel(g WarriorGroup) string {
	switch g.Slug {
	case "":
		return "none chosen"
	case "auto":
		return "auto (the tracker's choice)"
	case "(other)":
		return "projects not listed here"
	}
	return displayTitle(g.Title, g.Slug)
}

func groupLinked(g WarriorGroup) bool { return g.Slug != "" && g.Slug != "auto" && g.Slug != "(other)" }

func versionLabel(v string) string {
	if v == "" {
		return "unknown"
	}
	return v
}
