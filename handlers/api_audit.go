package handlers

import (
	"cmp"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"tracker/audit"
)

// apiAuditEntry is an audit entry as the admin API answers it
// (openapi.yaml, AuditEntry).
type apiAuditEntry struct {
	ID       int64           `json:"id"`
	At       time.Time       `json:"at"`
	Username string          `json:"username"`
	IP       string          `json:"ip"`
	Action   string          `json:"action"`
	Project  string          `json:"project"`
	Detail   json.RawMessage `json:"detail"`
}

// apiAudit is GET /api/v1/audit?project=SLUG&user=NAME&action=ACTION&from=DAY&to=DAY&before=ID&limit=N:
// the newest entries the filter picks, a page at a time (before: the
// last id of the page before), as the panel's audit log. An account that
// is no global admin, or a token limited to some projects, names one of
// its projects.
func (h *Handler) apiAudit(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f := audit.Filter{Username: q.Get("user"), Action: q.Get("action"), Max: auditPage}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > auditPage {
			return errorf(http.StatusBadRequest, "invalid-limit", "limit: 1 to %d", auditPage)
		}
		f.Max = n
	}
	if slug := q.Get("project"); slug != "" {
		r.SetPathValue("slug", slug)
		p, err := h.apiProject(r)
		if err != nil {
			return err
		}
		f.ProjectID = p.ID
	} else if err := apiGlobal(r); err != nil {
		return errorf(http.StatusForbidden, "forbidden", "name one of your projects (project=SLUG)")
	}
	if e := auditDays(&f, strings.TrimSpace(q.Get("from")), strings.TrimSpace(q.Get("to"))); e != nil {
		return e
	}
	if s := q.Get("before"); s != "" {
		var err error
		if f.Before, err = strconv.ParseInt(s, 10, 64); err != nil || f.Before < 1 {
			return errorf(http.StatusBadRequest, "invalid-before", "before: an entry's id")
		}
	}
	rows, err := h.adm.audit.List(r.Context(), f)
	if err != nil {
		return err
	}
	out := struct {
		Entries    []apiAuditEntry `json:"entries"`
		NextBefore *int64          `json:"next_before"`
	}{Entries: make([]apiAuditEntry, len(rows))}
	for i, e := range rows {
		ip := ""
		if e.IP.IsValid() {
			ip = e.IP.String()
		}
		out.Entries[i] = apiAuditEntry{ID: e.ID, At: e.At, Username: e.Username, IP: ip, Action: e.Action,
			Project: e.ProjectSlug, Detail: json.RawMessage(cmp.Or(e.Detail, "{}"))}
	}
	if len(rows) == f.Max {
		next := rows[len(rows)-1].ID
		out.NextBefore = &next
	}
	return writeJSON(w, http.StatusOK, out)
}
