package handlers

import (
	"encoding/json"
	"net/http"
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
// warriors' project picker.
func (h *Handler) projectsJSON(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	settings, err := h.projects.Settings(ctx)
	if err != nil {
		return err
	}
	ps, err := h.projects.List(ctx)
	if err != nil {
		return err
	}
	var f projectsFile
	f.Warrior.SeesawVersion = settings.SeesawVersion
	if settings.AutoProject != "" {
		f.AutoProject = &settings.AutoProject
	}
	f.BroadcastMessage, f.BannerHTML = settings.BroadcastMessage, settings.BannerHTML
	f.Projects = []projectsFileItem{}
	base := h.baseURL(w, r)
	for _, p := range ps {
		if p.Config.Hidden {
			continue
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
	body, err := json.Marshal(f)
	if err != nil {
		return err
	}
	return writeCached(w, r, body, 10*time.Second)
}

func displayTitle(p projects.Project) string {
	if p.Title == "" {
		return p.Slug
	}
	return p.Title
}
