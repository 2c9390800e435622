package handlers

import (
	"net/http"

	"tracker/dictionaries"
	"tracker/projects"
	"tracker/views"
)

// renderQueues is GET /admin/projects/{slug}/queues: adding, moving and
// requeueing items, the backfeed URL, and the queue settings.
func (h *Handler) renderQueues(w http.ResponseWriter, r *http.Request, p projects.Project, st formState) error {
	page, _, err := h.projectPage(r, p, "queues", st)
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
	return render(w, r, st.status, views.Layout("Queues · "+displayTitle(p), views.AdminQueues(v)))
}
