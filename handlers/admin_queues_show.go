package handlers

import (
	"net/http"

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
	v := views.AdminQueuesView{AdminProjectPage: page, Fields: sectionFields(r, p, projects.SectionQueues, st),
		BackfeedURL: baseURL(r) + "/backfeed/legacy/" + p.Slug + "-" + p.Config.BackfeedKey}
	return render(w, r, st.status, views.Layout("Queues · "+displayTitle(p), views.AdminQueues(v)))
}
