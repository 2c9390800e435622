package handlers

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"tracker/audit"
	"tracker/projects"
	"tracker/views"
)

// auditPage is how many entries a page of the audit log shows.
const auditPage = 200

// adminAudit is GET /admin/audit[?project=SLUG&user=NAME&action=ACTION&before=ID]:
// the newest entries, a page at a time; a project admin sees those of their
// projects only.
func (h *Handler) adminAudit(w http.ResponseWriter, r *http.Request) error {
	ctx, a := r.Context(), account(r)
	q := r.URL.Query()
	v := views.AdminAuditView{AdminPage: h.adminPageOf(r), Project: q.Get("project"), User: q.Get("user"), Action: q.Get("action")}
	f := audit.Filter{Username: v.User, Action: v.Action, Max: auditPage}
	if v.Project != "" {
		p, err := h.projects.Get(ctx, v.Project)
		if err != nil && !errors.Is(err, projects.ErrNotFound) {
			return err
		}
		if err := canRun(r, p.ID); err != nil {
			return err
		}
		f.ProjectID = p.ID
	} else if !a.IsAdmin() {
		return errorf(http.StatusForbidden, "forbidden", "choose one of your projects")
	}
	f.Before, _ = strconv.ParseInt(q.Get("before"), 10, 64)
	entries, err := h.audit.List(ctx, f)
	if err != nil {
		return err
	}
	v.Entries = auditEntries(entries)
	if len(entries) == auditPage {
		next := url.Values{"project": {v.Project}, "user": {v.User}, "action": {v.Action},
			"before": {strconv.FormatInt(entries[len(entries)-1].ID, 10)}}
		v.Next = "/admin/audit?" + next.Encode()
	}
	return render(w, r, http.StatusOK, views.Layout("Audit log", views.AdminAudit(v)))
}

func auditEntries(rows []audit.Row) []views.AdminAuditEntry {
	out := make([]views.AdminAuditEntry, len(rows))
	for i, e := range rows {
		out[i] = views.AdminAuditEntry{ID: e.ID, At: e.At, Username: e.Username, IP: e.IP, Action: e.Action,
			ProjectSlug: e.ProjectSlug, Detail: e.Detail}
	}
	return out
}
