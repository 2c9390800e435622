package handlers

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"tracker/db"
	"tracker/items"
	"tracker/projects"
	"tracker/views"
)

// adminHome is GET /admin/: the projects the admin runs, and the jobs.
func (h *Handler) adminHome(w http.ResponseWriter, r *http.Request) error {
	ctx, a := r.Context(), account(r)
	ps, err := h.projects.List(ctx)
	if err != nil {
		return err
	}
	v := views.AdminHomeView{Username: a.Username, IsAdmin: a.IsAdmin(), Flash: r.URL.Query().Get("flash")}
	for _, p := range ps {
		if !a.CanRun(p.ID) {
			continue
		}
		s, err := h.projects.Summary(ctx, p)
		if err != nil {
			return err
		}
		v.Projects = append(v.Projects, views.AdminProjectRow{Slug: p.Slug, Title: p.Title, Paused: p.Config.Paused,
			Queues: s.Queues, Claims: s.Claims, Done: s.Done})
	}
	if v.Jobs, err = db.New(h.pool).JobList(ctx); err != nil {
		return err
	}
	return render(w, r, http.StatusOK, views.Layout("Admin", views.AdminHome(v)))
}

// adminProjectCreate is POST /admin/projects (global admins).
func (h *Handler) adminProjectCreate(w http.ResponseWriter, r *http.Request) error {
	if err := globalOnly(r); err != nil {
		return err
	}
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	slug, title := strings.TrimSpace(r.PostForm.Get("slug")), strings.TrimSpace(r.PostForm.Get("title"))
	if err := projects.ValidSlug(slug); err != nil {
		return errorf(http.StatusBadRequest, "invalid-slug", "%v", err)
	}
	p, err := h.projects.Create(r.Context(), slug, title)
	if errors.Is(err, projects.ErrExists) {
		return errorf(http.StatusConflict, "project-exists", "a project %q exists already", slug)
	}
	if err != nil {
		return err
	}
	if err := record(r, db.New(h.pool), "project.create", p.ID, map[string]any{"slug": slug, "title": title}); err != nil {
		return err
	}
	http.Redirect(w, r, "/admin/projects/"+p.Slug+"/", http.StatusSeeOther)
	return nil
}

// adminProject reads the project of an admin route and checks the admin
// may run it.
func (h *Handler) adminProject(r *http.Request) (projects.Project, error) {
	p, err := h.projects.Get(r.Context(), r.PathValue("slug"))
	if errors.Is(err, projects.ErrNotFound) {
		return p, errorf(http.StatusNotFound, "unknown-project", "no project %q", r.PathValue("slug"))
	}
	if err != nil {
		return p, err
	}
	return p, canRun(r, p.ID)
}

// adminProjectShow is GET /admin/projects/{slug}/.
func (h *Handler) adminProjectShow(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProject(r)
	if err != nil {
		return err
	}
	return h.renderAdminProject(w, r, http.StatusOK, p, r.URL.Query().Get("flash"), "")
}

func (h *Handler) renderAdminProject(w http.ResponseWriter, r *http.Request, status int, p projects.Project, flash, formErr string) error {
	s, err := h.projects.Summary(r.Context(), p)
	if err != nil {
		return err
	}
	v := views.AdminProjectView{Username: account(r).Username, Project: projectInfo(p), Queues: s.Queues, Claims: s.Claims,
		Done: s.Done, Flash: flash, Error: formErr}
	for _, k := range projects.Keys {
		v.Fields = append(v.Fields, views.ConfigField{Key: k, Value: p.Value(k)})
	}
	ctx := r.Context()
	blocks, err := h.projects.Blocks(ctx, p)
	if err != nil {
		return err
	}
	for _, b := range blocks {
		v.Blocks = append(v.Blocks, views.AdminBlock{Kind: b.Kind, Value: b.Value, Reason: b.Reason, Global: b.ProjectID == nil})
	}
	targets, err := h.projects.Targets(ctx, p)
	if err != nil {
		return err
	}
	for _, t := range targets {
		v.Targets = append(v.Targets, views.AdminTarget{URL: t.URL, Weight: t.Weight, Enabled: t.Enabled})
	}
	v.BackfeedURL = baseURL(r) + "/backfeed/legacy/" + p.Slug + "-" + p.Config.BackfeedKey
	if name := r.URL.Query().Get("item"); name != "" && r.Method == http.MethodGet {
		v.Item = &views.Lookup{Query: name}
		live, err := h.live.Get(ctx, p.Slug)
		if err != nil {
			return err
		}
		st, err := h.items.Lookup(ctx, live, name)
		switch {
		case err == nil:
			v.Item = &views.Lookup{Query: name, Found: true, Status: st.Status, Queue: st.Queue, ClaimCount: st.ClaimCount,
				Downloader: st.Downloader, ClaimedAt: st.ClaimedAt, DoneAt: st.DoneAt, Archive: st.Archive}
		case !errors.Is(err, items.ErrUnknownItem):
			return err
		}
	}
	return render(w, r, status, views.Layout(displayTitle(p)+" · admin", views.AdminProject(v)))
}

// adminProjectConfig is POST /admin/projects/{slug}/config: the keys the
// form sends that changed, all or none; every change is in the audit log.
func (h *Handler) adminProjectConfig(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProject(r)
	if err != nil {
		return err
	}
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	var assignments []string
	changes := map[string]any{}
	for _, k := range projects.Keys {
		vs, sent := r.PostForm[k]
		if !sent || len(vs) != 1 {
			continue
		}
		if old := p.Value(k); vs[0] != old {
			assignments = append(assignments, k+"="+vs[0])
			changes[k] = map[string]string{"from": old, "to": vs[0]}
		}
	}
	for k := range r.PostForm {
		if !slices.Contains(projects.Keys, k) {
			return errorf(http.StatusBadRequest, "unknown-key", "unknown configuration key %q", k)
		}
	}
	if len(assignments) == 0 {
		http.Redirect(w, r, "/admin/projects/"+p.Slug+"/?flash=Nothing+changed.", http.StatusSeeOther)
		return nil
	}
	updated, err := h.projects.Set(r.Context(), p, assignments)
	if err != nil {
		return h.renderAdminProject(w, r, http.StatusBadRequest, p, "", err.Error())
	}
	if err := record(r, db.New(h.pool), "project.config", p.ID, changes); err != nil {
		return err
	}
	http.Redirect(w, r, "/admin/projects/"+updated.Slug+"/?flash=Saved.", http.StatusSeeOther)
	return nil
}

// adminItemsAdd is POST /admin/projects/{slug}/items, a multipart form:
// "queue", then "names" (pasted) and/or "file" (uploaded). Parts are read
// as they arrive: a 10,000,000-line file streams into the queue without
// the server holding it.
func (h *Handler) adminItemsAdd(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProject(r)
	if err != nil {
		return err
	}
	r.Body = http.MaxBytesReader(w, r.Body, 8<<30)
	mr, err := r.MultipartReader()
	if err != nil {
		return errorf(http.StatusBadRequest, "bad-form", "send the items as multipart/form-data")
	}
	queue := "todo"
	var total items.AddResult
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return errorf(http.StatusBadRequest, "bad-form", "reading the form: %v", err)
		}
		switch part.FormName() {
		case "queue":
			b, _ := io.ReadAll(io.LimitReader(part, 256))
			if queue = strings.TrimSpace(string(b)); queue == "" {
				queue = "todo"
			}
			if err := items.ValidQueue(queue); err != nil {
				return h.renderAdminProject(w, r, http.StatusBadRequest, p, "", err.Error())
			}
		case "names", "file":
			res, err := h.items.Add(r.Context(), p, queue, part)
			addResults(&total, res)
			if err != nil {
				return err
			}
		}
		part.Close()
	}
	detail := map[string]any{"queue": queue, "added": total.Added, "skipped": total.Skipped, "invalid": total.Invalid}
	if err := record(r, db.New(h.pool), "items.add", p.ID, detail); err != nil {
		return err
	}
	msg := fmt.Sprintf("Added %d to %s, skipped %d seen before", total.Added, queue, total.Skipped)
	if total.Invalid > 0 {
		msg += fmt.Sprintf(", left out %d invalid lines (%s)", total.Invalid, strings.Join(total.InvalidLines, "; "))
	}
	return h.renderAdminProject(w, r, http.StatusOK, p, msg+".", "")
}

func addResults(total *items.AddResult, r items.AddResult) {
	total.Added += r.Added
	total.Skipped += r.Skipped
	total.Invalid += r.Invalid
	total.InvalidLines = append(total.InvalidLines, r.InvalidLines...)
}

// adminClaimsRelease is POST /admin/projects/{slug}/claims/release: the
// claims older than older_than minutes, of downloader when given, go back
// to their queues.
func (h *Handler) adminClaimsRelease(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProject(r)
	if err != nil {
		return err
	}
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	downloader := strings.TrimSpace(r.PostForm.Get("downloader"))
	minutes := 0
	if s := strings.TrimSpace(r.PostForm.Get("older_than")); s != "" {
		if minutes, err = strconv.Atoi(s); err != nil || minutes < 0 {
			return h.renderAdminProject(w, r, http.StatusBadRequest, p, "", "older_than: a whole number of minutes")
		}
	}
	sel := items.Selection{Prefix: r.PostForm.Get("prefix"), Pattern: r.PostForm.Get("pattern")}
	n, err := h.items.ReleaseWhere(r.Context(), p, downloader, time.Duration(minutes)*time.Minute, sel)
	var invalid *items.InvalidError
	if errors.As(err, &invalid) {
		return h.renderAdminProject(w, r, http.StatusBadRequest, p, "", invalid.Error())
	}
	if err != nil {
		return err
	}
	detail := map[string]any{"downloader": downloader, "older_than_minutes": minutes, "prefix": sel.Prefix, "pattern": sel.Pattern, "released": n}
	if err := record(r, db.New(h.pool), "claims.release", p.ID, detail); err != nil {
		return err
	}
	return h.renderAdminProject(w, r, http.StatusOK, p, fmt.Sprintf("Released %d claims.", n), "")
}

// auditPage is how many entries a page of the audit log shows.
const auditPage = 200

// adminAudit is GET /admin/audit[?project=SLUG&user=NAME&action=ACTION&before=ID]:
// the newest entries, a page at a time; a project admin sees those of their
// projects only.
func (h *Handler) adminAudit(w http.ResponseWriter, r *http.Request) error {
	ctx, a := r.Context(), account(r)
	q := r.URL.Query()
	v := views.AdminAuditView{Username: a.Username, Project: q.Get("project"), User: q.Get("user"), Action: q.Get("action"), Now: time.Now()}
	var projectID int32
	if v.Project != "" {
		p, err := h.projects.Get(ctx, v.Project)
		if err != nil && !errors.Is(err, projects.ErrNotFound) {
			return err
		}
		if err := canRun(r, p.ID); err != nil {
			return err
		}
		projectID = p.ID
	} else if !a.IsAdmin() {
		return errorf(http.StatusForbidden, "forbidden", "choose one of your projects")
	}
	before, _ := strconv.ParseInt(q.Get("before"), 10, 64)
	entries, err := db.New(h.pool).AuditLogList(ctx, db.AuditLogListParams{ProjectID: projectID, Username: v.User,
		Action: v.Action, BeforeID: before, Max: auditPage})
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	v.Entries = entries
	if len(entries) == auditPage {
		next := url.Values{"project": {v.Project}, "user": {v.User}, "action": {v.Action},
			"before": {strconv.FormatInt(entries[len(entries)-1].ID, 10)}}
		v.Next = "/admin/audit?" + next.Encode()
	}
	return render(w, r, http.StatusOK, views.Layout("Audit log", views.AdminAudit(v)))
}

func parseSmallForm(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	if err := r.ParseForm(); err != nil {
		return errorf(http.StatusBadRequest, "bad-form", "the form could not be read")
	}
	return nil
}

// adminProjectDelete is POST /admin/projects/{slug}/delete (global
// admins), once "confirm" repeats the slug: the project is gone at once for
// every route, and the purge job removes its rows in the background.
func (h *Handler) adminProjectDelete(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProject(r)
	if err != nil {
		return err
	}
	if err := globalOnly(r); err != nil {
		return err
	}
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	if r.PostForm.Get("confirm") != p.Slug {
		return h.renderAdminProject(w, r, http.StatusBadRequest, p, "", "To delete the project, type its slug to confirm.")
	}
	if err := h.projects.MarkDeleting(r.Context(), p); err != nil {
		return err
	}
	if err := record(r, db.New(h.pool), "project.delete", p.ID, map[string]any{"slug": p.Slug}); err != nil {
		return err
	}
	http.Redirect(w, r, "/admin/?flash="+url.QueryEscape("Deleting "+p.Slug+": its rows go in the background."), http.StatusSeeOther)
	return nil
}
