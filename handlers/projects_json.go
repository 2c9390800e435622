package handlers

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"tracker/projects"
)

// projectsFile is GET /projects.json in the warrior-hq format (docs/PROTOCOL.md, "The projects file").
type projectsFile struct {
	Warrior struct {
		SeesawVersion string `json:"seesaw_version"`
	} `json:"warrior"`
	AutoProject      *string            `json:"auto_project"`
	BroadcastMessage string             `json:"broadcast_message"`
	BannerHTML       string             `json:"tracker_banner_html"`
	Projects         []projectsFileItem `json:"projects"`
}

// projectsFileItem is one project of the file. A project without a
// deadline leaves the key out: seesaw runs strptime on any deadline key
// present, and null crashes the warrior's project list.
type projectsFileItem struct {
	Name        string    `json:"name"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	Repository  string    `json:"repository"`
	Logo        string    `json:"logo"`
	MarkerHTML  string    `json:"marker_html"`
	Deadline    *string   `json:"deadline,omitempty"`
	Host        string    `json:"host"`
	Leaderboard string    `json:"leaderboard"`
	LatLng      []float64 `json:"lat_lng"`
}

// projectsJSON answers GET /projects.json: the public projects for the
// warriors' project picker, and for pages of other sites, as warrior-hq
// served it: any origin may read it (Access-Control-Allow-Origin: *), and
// ?callback=NAME answers it as JSONP, a script calling NAME with it.
func (h *Handler) projectsJSON(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	callback, jsonp := r.URL.Query()["callback"]
	if jsonp && !validCallback(callback[0]) {
		return errorf(http.StatusBadRequest, "invalid-callback", "callback is a JavaScript name: letters, digits, _ and $, not starting with a digit, parts joined by dots, at most %d characters", maxCallbackLen)
	}
	body, err := h.projectsFile(w, r)
	if err != nil {
		return err
	}
	if jsonp {
		// The comment first: a body starting with the name could be taken
		// for something else (a Flash file, in old browsers) by a page
		// choosing the name.
		script := make([]byte, 0, len(body)+len(callback[0])+8)
		script = append(append(append(append(script, "/**/"...), callback[0]...), '('), body...)
		return writeCachedAs(w, r, append(script, ");"...), 10*time.Second, "application/javascript")
	}
	return writeCached(w, r, body, 10*time.Second)
}

// maxCallbackLen bounds a JSONP callback's name.
const maxCallbackLen = 128

// validCallback tells whether a JSONP callback is a JavaScript name made
// of ASCII identifiers joined by dots (cb, jQuery3710_17, angular.callbacks._0):
// nothing in it can call, index or end the statement it is put in.
func validCallback(name string) bool {
	if name == "" || len(name) > maxCallbackLen {
		return false
	}
	for part := range strings.SplitSeq(name, ".") {
		if part == "" || '0' <= part[0] && part[0] <= '9' {
			return false
		}
		for _, c := range []byte(part) {
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '$') {
				return false
			}
		}
	}
	return true
}

// projectsFile is the JSON of the projects file (docs/PROTOCOL.md,
// "The projects file").
func (h *Handler) projectsFile(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	ctx := r.Context()
	settings, err := h.readSettings(ctx)
	if err != nil {
		return nil, err
	}
	ps, err := h.readList(ctx)
	if err != nil {
		return nil, err
	}
	auto, err := h.readAuto(ctx)
	if err != nil {
		return nil, err
	}
	var f projectsFile
	f.Warrior.SeesawVersion = settings.SeesawVersion
	f.BroadcastMessage, f.BannerHTML = settings.BroadcastMessage, settings.BannerHTML
	f.Projects = []projectsFileItem{}
	base := h.baseURL(w, r)
	for _, p := range ps {
		// A warrior runs only a project of the list: one that leaves it
		// (finished, hidden, deleted) is stopped at the warrior's next
		// update.
		if !p.Config.Listed() {
			continue
		}
		// auto_project, chosen from the setting's list, only when it
		// names a project of the file: a warrior on "auto" then moves to
		// it, and with null stops.
		if p.Slug == auto.Slug {
			f.AutoProject = &auto.Slug
		}
		item := projectsFileItem{
			Name: p.Slug, Title: displayTitle(p), Description: p.Config.Description, Repository: p.Config.Repository,
			Logo: p.Config.Logo, MarkerHTML: p.Config.MarkerHTML, Host: p.Config.Host,
			Leaderboard: base + "/" + p.Slug + "/", LatLng: p.Config.LatLng,
		}
		if d, ok := p.Config.DeadlineTime(); ok {
			s := d.UTC().Format(projects.DeadlineFormat)
			item.Deadline = &s
		}
		f.Projects = append(f.Projects, item)
	}
	return json.Marshal(f)
}

func displayTitle(p projects.Project) string {
	if p.Title == "" {
		return p.Slug
	}
	return p.Title
}
