package handlers

import (
	"net/http"

	"tracker/views"
)

// homeShow lists the projects.
func (h *Handler) homeShow(w http.ResponseWriter, r *http.Request) error {
	ps, err := h.projects.List(r.Context())
	if err != nil {
		return err
	}
	v := views.HomeView{Projects: make([]views.HomeProject, 0, len(ps))}
	for _, p := range ps {
		live, err := h.live.Get(r.Context(), p.Slug)
		if err != nil {
			return err
		}
		v.Projects = append(v.Projects, views.HomeProject{Slug: p.Slug, Title: p.Title, Done: live.Summary.Done, Bytes: live.Summary.Bytes})
	}
	return render(w, r, http.StatusOK, views.Layout("Projects", views.Home(v)))
}
