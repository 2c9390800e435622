package handlers

import (
	"net/http"
	"net/url"
	"strconv"

	"tracker/dictionaries"
	"tracker/projects"
	"tracker/views"
)

// renderQueues is GET /admin/projects/{slug}/queues: adding, moving and
// requeueing items, the backfeed URL, and the queue settings.
func (h *Handler) renderQueues(w http.ResponseWriter, r *http.Request, p projects.Project, st formState) error {
	page, sum, err := h.projectPage(r, p, "queues", st)
	if err != nil {
		return err
	}
	dicts, err := dictionaries.NewStore(h.pool).List(r.Context(), p.ID)
	if err != nil {
		return err
	}
	v := views.AdminQueuesView{AdminProjectPage: page, Fields: sectionFields(r, p, projects.SectionQueues, st),
		BackfeedURL:   h.baseURL(w, r) + "/backfeed/legacy/" + p.Slug + "-" + p.Config.BackfeedKey,
		DictionaryURL: h.baseURL(w, r) + "/dictionary?project=" + p.Slug}
	for _, d := range dicts {
		v.Dictionaries = append(v.Dictionaries, views.AdminDictionary{ID: d.ID, SHA256: d.SHA256, Size: int64(d.Size),
			CreatedAt: d.CreatedAt, CreatedBy: d.CreatedBy, URL: h.dictionaryURL(w, r, d.ID)})
	}
	if err := h.failedPage(r, p, sum.Errors(), &v); err != nil {
		return err
	}
	return render(w, r, st.status, views.Layout("Queues · "+displayTitle(p), views.AdminQueues(v)))
}

// failedPage is a page of the error queue, from ?failed_after=ID and of
// names starting with ?failed_prefix=.
func (h *Handler) failedPage(r *http.Request, p projects.Project, count int64, v *views.AdminQueuesView) error {
	q := r.URL.Query()
	v.FailedCount, v.MaxClaims = count, p.Config.MaxClaims
	v.FailedPrefix = q.Get("failed_prefix")
	var after int64
	if s := q.Get("failed_after"); s != "" {
		var err error
		if after, err = strconv.ParseInt(s, 10, 64); err != nil {
			return errorf(http.StatusBadRequest, "bad-cursor", "failed_after is an item id")
		}
	}
	if v.FailedCount == 0 && v.FailedPrefix == "" {
		return nil
	}
	list, err := h.items.QueuePage(r.Context(), p, projects.ErrorQueue, v.FailedPrefix, after, failedPage)
	if err != nil {
		return err
	}
	for _, it := range list {
		v.Failed = append(v.Failed, views.AdminFailedItem{Name: it.Name, ClaimCount: it.ClaimCount, LastDownloader: it.LastDownloader,
			URL: "/admin/projects/" + p.Slug + "/?item=" + url.QueryEscape(it.Name)})
	}
	if len(list) == failedPage {
		next := url.Values{"failed_prefix": {v.FailedPrefix}, "failed_after": {strconv.FormatInt(list[len(list)-1].ID, 10)}}
		v.FailedNext = "/admin/projects/" + p.Slug + "/queues?" + next.Encode()
	}
	return nil
}

// failedPage is how many failed items a page lists.
const failedPage = 100
