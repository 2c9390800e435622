package handlers

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"tracker/audit"
	"tracker/projects"
	"tracker/views"
)

// auditPage is how many entries a page of the audit log shows.
const auditPage = 200

// adminAudit is GET /admin/audit[?project=SLUG&user=NAME&action=ACTION&from=DAY&to=DAY&before=ID]:
// the newest entries, a page at a time, from and to being days in UTC
// (YYYY-MM-DD, both included); a project admin sees those of their projects
// only.
func (h *Handler) adminAudit(w http.ResponseWriter, r *http.Request) error {
	ctx, a := r.Context(), account(r)
	q := r.URL.Query()
	v := views.AdminAuditView{AdminPage: h.adminPageOf(r), Project: q.Get("project"), User: q.Get("user"), Action: q.Get("action"),
		From: strings.TrimSpace(q.Get("from")), To: strings.TrimSpace(q.Get("to"))}
	f := audit.Filter{Username: v.User, Action: v.Action, Max: auditPage}
	if v.Project != "" {
		p, err := h.adm.projects.Get(ctx, v.Project)
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
	if e := auditDays(&f, v.From, v.To); e != nil {
		// The page again, with the filter to correct and no entries.
		setErrorHeaders(w, e)
		v.Flash, v.Error = "", e.Msg
		return render(w, r, e.Status, views.AdminLayout("Audit log", views.AdminAudit(v)))
	}
	f.Before, _ = strconv.ParseInt(q.Get("before"), 10, 64)
	entries, err := h.adm.audit.List(ctx, f)
	if err != nil {
		return err
	}
	v.Entries = auditEntries(entries)
	if len(entries) == auditPage {
		next := url.Values{"project": {v.Project}, "user": {v.User}, "action": {v.Action}, "from": {v.From}, "to": {v.To},
			"before": {strconv.FormatInt(entries[len(entries)-1].ID, 10)}}
		v.Next = "/admin/audit?" + next.Encode()
	}
	return render(w, r, http.StatusOK, views.AdminLayout("Audit log", views.AdminAudit(v)))
}

// auditDays sets the filter's bounds from the days from and to (YYYY-MM-DD,
// UTC, both included; "" for no bound).
func auditDays(f *audit.Filter, from, to string) *Error {
	day := func(s, name string) (*time.Time, *Error) {
		if s == "" {
			return nil, nil
		}
		t, err := time.Parse(time.DateOnly, s)
		if err != nil {
			return nil, errorf(http.StatusBadRequest, "invalid-date", "%s: %q is no day (YYYY-MM-DD)", name, s)
		}
		return &t, nil
	}
	since, e := day(from, "From")
	if e != nil {
		return e
	}
	until, e := day(to, "To")
	if e != nil {
		return e
	}
	if since != nil && until != nil && until.Before(*since) {
		return errorf(http.StatusBadRequest, "invalid-date", "From %s is after to %s.", from, to)
	}
	if until != nil {
		// The whole of the last day.
		end := until.AddDate(0, 0, 1)
		until = &end
	}
	f.Since, f.Until = since, until
	return nil
}

func auditEntries(rows []audit.Row) []views.AdminAuditEntry {
	out := make([]views.AdminAuditEntry, len(rows))
	for i, e := range rows {
		out[i] = views.AdminAuditEntry{ID: e.ID, At: e.At, Username: e.Username, IP: e.IP, Action: e.Action,
			ProjectSlug: e.ProjectSlug, Detail: e.Detail, Lines: withUnits(views.AuditDetail(e.Detail))}
	}
	return out
}

// withUnits gives the values of the settings counted in a unit (seconds,
// items, claims) their unit: "reclaim_ttl: 600 s (10 min) → 1,200 s (20
// min)", not bare numbers.
func withUnits(lines []views.AuditLine) []views.AuditLine {
	for i, l := range lines {
		k, err := projects.KeyNamed(l.Key)
		if err != nil || k.Unit == "" {
			continue
		}
		lines[i].From, lines[i].To = withUnit(l.From, k.Unit), withUnit(l.To, k.Unit)
	}
	return lines
}

func withUnit(v, unit string) string {
	n, err := strconv.ParseInt(strings.ReplaceAll(v, ",", ""), 10, 64)
	if v == "" || err != nil {
		return v
	}
	v = views.FormatInt(n)
	if unit == "seconds" {
		if n < 60 {
			return v + " s"
		}
		return v + " s (" + views.FormatDuration(time.Duration(n)*time.Second) + ")"
	}
	return v + " " + unit
}
