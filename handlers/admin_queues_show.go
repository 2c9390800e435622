package handlers

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"tracker/dictionaries"
	"tracker/naming"
	"tracker/projects"
	"tracker/views"
)

// renderQueues is GET /admin/projects/{slug}/queues: adding, moving and
// requeueing items, the failed and retired ones, and the queue settings.
func (h *Handler) renderQueues(w http.ResponseWriter, r *http.Request, p projects.Project, st formState) error {
	page, sum, err := h.projectPage(r, p, "queues", st)
	if err != nil {
		return err
	}
	v := views.AdminQueuesView{AdminProjectPage: page, Fields: sectionFields(r, p, projects.SectionQueues, st)}
	stopped := []views.AdminStoppedList{{Queue: naming.ErrorQueue, Title: "failed items", Count: sum.Errors(),
		Help: fmt.Sprintf("Handed out %d times (max_claims), never finished: no warrior is given them again until they are queued again.", p.Config.MaxClaims)}}
	if p.Config.Recurring() || sum.Retired() > 0 {
		stopped = append(stopped, views.AdminStoppedList{Queue: naming.RetiredQueue, Title: "retired items", Count: sum.Retired(),
			Help: fmt.Sprintf("Their score fell below %g (retire_below): they are visited no more. Queued again, they start over with a score of 1.", p.Config.RetireBelow)})
	}
	for _, l := range stopped {
		if err := h.stoppedPage(r, p, &l); err != nil {
			return err
		}
		if l.Count > 0 || l.Prefix != "" {
			v.Stopped = append(v.Stopped, l)
		}
	}
	return renderForm(w, r, st, views.AdminLayout("Queues · "+displayTitle(p), views.AdminQueues(v)))
}

// renderFeeds is GET /admin/projects/{slug}/feeds: the backfeed URL and a
// new key, and the compression dictionaries.
func (h *Handler) renderFeeds(w http.ResponseWriter, r *http.Request, p projects.Project, st formState) error {
	page, _, err := h.projectPage(r, p, "feeds", st)
	if err != nil {
		return err
	}
	dicts, err := dictionaries.NewStore(h.adm.pool).List(r.Context(), p.ID)
	if err != nil {
		return err
	}
	v := views.AdminQueuesView{AdminProjectPage: page,
		BackfeedURL:   h.baseURL(w, r) + "/backfeed/legacy/" + p.Slug + "-" + p.Config.BackfeedKey,
		DictionaryURL: h.baseURL(w, r) + "/dictionary?project=" + p.Slug}
	if !dictionaries.Packable(p.Slug) {
		v.DictionaryWarning = fmt.Sprintf("The staging servers' packer cannot pack this project's zstd WARCs: grab scripts name them "+
			"{base}.%s.{id}.warc.zst, and the packer reads the project from that name as letters, digits and '-' only, so it refuses "+
			"every file. A project whose WARCs are compressed with a dictionary needs a slug without '_'.", p.Slug)
	}
	for _, d := range dicts {
		v.Dictionaries = append(v.Dictionaries, views.AdminDictionary{ID: d.ID, LegacyID: d.LegacyID, SHA256: d.SHA256, Size: int64(d.Size),
			CreatedAt: d.CreatedAt, CreatedBy: d.CreatedBy, URL: h.dictionaryURL(w, r, d)})
	}
	return renderForm(w, r, st, views.AdminLayout("Backfeed & dictionary · "+displayTitle(p), views.AdminFeeds(v)))
}

// stoppedPage is a page of a queue no request is served from, from
// ?{queue}_after=ID and of names starting with ?{queue}_prefix=.
func (h *Handler) stoppedPage(r *http.Request, p projects.Project, l *views.AdminStoppedList) error {
	q := r.URL.Query()
	l.Prefix = q.Get(l.Queue + "_prefix")
	var after int64
	if s := q.Get(l.Queue + "_after"); s != "" {
		var err error
		if after, err = strconv.ParseInt(s, 10, 64); err != nil {
			return errorf(http.StatusBadRequest, "bad-cursor", "%s_after is an item id", l.Queue)
		}
	}
	if l.Count == 0 && l.Prefix == "" {
		return nil
	}
	list, err := h.adm.items.QueuePage(r.Context(), p, l.Queue, l.Prefix, after, stoppedPage)
	if err != nil {
		return err
	}
	for _, it := range list {
		l.Items = append(l.Items, views.AdminStoppedItem{Name: it.Name, ClaimCount: it.ClaimCount, LastDownloader: it.LastDownloader,
			URL: "/admin/projects/" + p.Slug + "/?item=" + url.QueryEscape(it.Name)})
	}
	if len(list) == stoppedPage {
		next := url.Values{l.Queue + "_prefix": {l.Prefix}, l.Queue + "_after": {strconv.FormatInt(list[len(list)-1].ID, 10)}}
		l.Next = "/admin/projects/" + p.Slug + "/queues?" + next.Encode()
	}
	return nil
}

// stoppedPage is how many items a page of a stopped queue lists.
const stoppedPage = 100
