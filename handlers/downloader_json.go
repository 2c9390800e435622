package handlers

import (
	"errors"
	"net/http"
	"strings"

	"tracker/naming"
	"tracker/stats"
)

// nickMaxProjects bounds the projects GET /downloader/{nick}.json lists,
// most bytes first; its totals count them all.
const nickMaxProjects = 1000

// downloaderJSON answers GET /{project}/downloader/{nick}.json: what the
// downloader's page shows, as JSON (stats.DownloaderStats), for a bot
// asking about a nick that stats.json does not list.
func (h *Handler) downloaderJSON(w http.ResponseWriter, r *http.Request) error {
	live, err := h.readProject(r)
	if err != nil {
		return err
	}
	nick, err := jsonNick(r)
	if err != nil {
		return err
	}
	d, err := h.stats.Downloader(r.Context(), live.Project, nick)
	if errors.Is(err, stats.ErrNoDownloader) {
		return errorf(http.StatusNotFound, "unknown-downloader", "%s has done nothing on %s yet", nick, live.Slug)
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, d)
}

// nickTotals is GET /downloader/{nick}.json.
type nickTotals struct {
	stats.NickTotals
	// ProjectCount is how many projects the totals count; Projects lists
	// nickMaxProjects of them at most.
	ProjectCount int `json:"project_count"`
}

// nickJSON answers GET /downloader/{nick}.json: a nick's all-time totals
// over every public project, and each project's, as the nick's page shows
// them (folded totals: they lag the boards by the rollup's interval).
// /downloader/{nick} without ".json" is the nick's page without its
// slash, where ServeMux sent it before there was a JSON: it still goes
// there.
func (h *Handler) nickJSON(w http.ResponseWriter, r *http.Request) error {
	if !strings.HasSuffix(r.PathValue("nick"), ".json") {
		http.Redirect(w, r, r.URL.EscapedPath()+"/", http.StatusTemporaryRedirect)
		return nil
	}
	nick, err := jsonNick(r)
	if err != nil {
		return err
	}
	t, err := h.publicNick(r, nick)
	if err != nil {
		return err
	}
	out := nickTotals{NickTotals: t, ProjectCount: len(t.Projects)}
	if len(out.Projects) > nickMaxProjects {
		out.Projects = out.Projects[:nickMaxProjects]
	}
	return writeJSON(w, http.StatusOK, out)
}

// jsonNick is the nick of a path ending in {nick}.json.
func jsonNick(r *http.Request) (string, error) {
	nick, ok := strings.CutSuffix(r.PathValue("nick"), ".json")
	if !ok {
		return "", errorf(http.StatusNotFound, "not-found", "there is no such page")
	}
	if err := naming.ValidNick(nick); err != nil {
		return "", errorf(http.StatusBadRequest, "invalid-nick", "%v", err)
	}
	return nick, nil
}
