package handlers_test

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"tracker/audit"
	"tracker/db/dbtest"
	"tracker/jobs"
	"tracker/users"
)

// jobsFixture is a tracker with the jobs reclaim (every 30 s) and archive
// (every 10 min), archive's last run having failed on project test; root
// is a global admin, helper runs test, stranger runs no project.
func jobsFixture(t *testing.T) (fixture, *adminClient, *adminClient, *adminClient) {
	t.Helper()
	ctx := context.Background()
	f := setup(t)
	idle := func(context.Context) (string, error) { return "nothing to do", nil }
	failing := func(context.Context) (string, error) {
		return "archived 3 days", &jobs.ProjectErrors{Failed: []jobs.ProjectError{{Project: "test", Err: errors.New("disk full")}}}
	}
	r := jobs.NewRunner(slog.New(slog.DiscardHandler), f.pool,
		jobs.Job{Name: "reclaim", Every: 30 * time.Second, Run: idle}, jobs.Job{Name: "archive", Every: 10 * time.Minute, Run: failing})
	if _, err := r.RunNow(ctx, "archive"); err == nil {
		t.Fatal("the failing run reported no error")
	}
	f.user(t, "root", users.RoleAdmin)
	f.user(t, "helper", users.RoleProjectAdmin)
	f.user(t, "stranger", users.RoleProjectAdmin)
	store := users.NewStore(f.pool)
	var helperID int32
	dbtest.MustScan(t, f.pool.QueryRow(ctx, "SELECT id FROM users WHERE username = 'helper'"), &helperID)
	helper, err := store.Account(ctx, helperID)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Grant(ctx, helper, f.project.ID); err != nil {
		t.Fatal(err)
	}
	return f, f.signedIn(t, "root"), f.signedIn(t, "helper"), f.signedIn(t, "stranger")
}

// jobNow is the job as stored now.
func (f fixture) jobNow(t *testing.T, name string) jobs.Status {
	t.Helper()
	js, err := jobs.List(context.Background(), f.pool)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range js {
		if j.Name == name {
			return j
		}
	}
	t.Fatalf("no job %s", name)
	return jobs.Status{}
}

// jobEntries are the audit log's entries of an action, newest first, as
// "user detail".
func (f fixture) jobEntries(t *testing.T, action string) []string {
	t.Helper()
	rows, err := audit.New(f.pool).List(context.Background(), audit.Filter{Action: action, Max: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, r.Username+" "+r.Detail)
	}
	return out
}

func page(t *testing.T, a answer) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(a.body))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// The jobs page shows each job's interval, last run (when, how long, how
// it went) and next run, and the projects the last run failed on: every
// one to a global admin, a project admin only those they run. Only global
// admins get the buttons.
func TestAdminJobsPage(t *testing.T) {
	t.Parallel()
	_, root, helper, stranger := jobsFixture(t)

	a := root.get(t, "/admin/jobs")
	if a.status != 200 {
		t.Fatalf("jobs page: %d %s", a.status, a.body)
	}
	doc := page(t, a)
	archive := doc.Find(`[data-testid="job-archive"]`)
	if got := archive.Find(`[data-testid="job-failure"]`).Text(); !strings.Contains(got, "test") || !strings.Contains(got, "disk full") {
		t.Errorf("archive's failures: %q", got)
	}
	if href, _ := archive.Find(`[data-testid="job-failure"] a`).Attr("href"); href != "/admin/projects/test/" {
		t.Errorf("the failed project links to %q", href)
	}
	if got := archive.Find(`[data-testid="job-summary"]`).Text(); got != "archived 3 days" {
		t.Errorf("archive's summary: %q", got)
	}
	if got := archive.Find(`[data-testid="job-took"]`).Text(); !strings.HasSuffix(got, " ms") && !strings.HasSuffix(got, " s") {
		t.Errorf("archive took %q", got)
	}
	last := archive.Find(`[data-testid="job-last-at"]`)
	if title, _ := last.Attr("title"); !strings.HasSuffix(title, " UTC") || len(title) != len("2006-01-02 15:04:05 UTC") {
		t.Errorf("last run's exact time %q", title)
	}
	if tab, _ := last.Attr("tabindex"); tab != "0" || !strings.HasSuffix(last.Text(), " ago") && last.Text() != "just now" {
		t.Errorf("last run reads %q, tabindex %q", last.Text(), tab)
	}
	if got := archive.Find(`[data-testid="job-next-at"]`).Text(); !strings.HasPrefix(got, "in ") {
		t.Errorf("archive's next run: %q", got)
	}
	if v, _ := doc.Find(`[data-testid="every-reclaim"]`).Attr("value"); v != "30 s" {
		t.Errorf("reclaim's interval field: %q", v)
	}
	for _, b := range []string{"run-reclaim", "disable-reclaim", "every-save-reclaim"} {
		if doc.Find(`[data-testid="`+b+`"]`).Length() != 1 {
			t.Errorf("a global admin has no %s", b)
		}
	}
	if doc.Find(`[data-live-controls]`).Length() != 1 || doc.Find(`[data-live-region="jobs"]`).Length() != 1 {
		t.Error("the jobs page does not refresh itself")
	}

	// The project admin of test reads the page and test's failure, and
	// has no button.
	doc = page(t, helper.get(t, "/admin/jobs"))
	if doc.Find(`[data-testid="job-archive"]`).Length() != 1 || doc.Find(`form[action^="/admin/jobs/"]`).Length() != 0 {
		t.Errorf("a project admin's jobs page: %d rows, %d forms", doc.Find(`[data-testid="job-archive"]`).Length(), doc.Find(`form[action^="/admin/jobs/"]`).Length())
	}
	if got := doc.Find(`[data-testid="job-failure"]`).Text(); !strings.Contains(got, "disk full") {
		t.Errorf("test's admin does not read its failure: %q", got)
	}
	// Another project's admin learns a project failed, not which.
	doc = page(t, stranger.get(t, "/admin/jobs"))
	if doc.Find(`[data-testid="job-failure"]`).Length() != 0 || strings.Contains(doc.Text(), "disk full") ||
		doc.Find(`[data-testid="job-other-failures"]`).Text() != "1 project you do not run" {
		t.Errorf("a stranger to test reads %q", doc.Find(`[data-testid="job-archive"]`).Text())
	}

	// Refreshing itself, the page reads the table alone.
	a = root.get(t, "/admin/jobs?live=1")
	if a.status != 200 || strings.Contains(a.body, "<html") || !strings.Contains(a.body, `data-live-region="jobs"`) {
		t.Errorf("the live table: %d %s", a.status, a.body)
	}
}

// Run now, switching on and off, and the interval: global admins only
// (403 for project admins, changing nothing), each in the audit log; a job
// that is not is 404 `unknown-job`.
func TestAdminJobActions(t *testing.T) {
	t.Parallel()
	f, root, helper, _ := jobsFixture(t)
	form := func(job string, kv ...string) url.Values {
		v := url.Values{"job": {job}}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}

	// A project admin changes nothing.
	for _, action := range []string{"run", "enable", "disable", "every"} {
		if a := helper.post(t, "/admin/jobs/"+action, form("reclaim", "every", "1 min", "confirmed", "1")); a.status != 403 || a.reason != "forbidden" {
			t.Errorf("a project admin's %s: %d %q", action, a.status, a.reason)
		}
	}
	if j := f.jobNow(t, "reclaim"); !j.Enabled || j.Every != 30*time.Second || j.RunRequestedAt != nil {
		t.Fatalf("project admins changed reclaim: %+v", j)
	}
	for _, action := range []string{"job.run", "job.enable", "job.disable", "job.every"} {
		if e := f.jobEntries(t, action); len(e) != 0 {
			t.Fatalf("refused actions audited: %q", e)
		}
	}
	for _, action := range []string{"run", "enable", "disable", "every"} {
		if a := root.post(t, "/admin/jobs/"+action, form("nope", "every", "1 min", "confirmed", "1")); a.status != 404 || a.reason != "unknown-job" {
			t.Errorf("%s of no job: %d %q", action, a.status, a.reason)
		}
	}

	// Run now: asked for, and a tracker process runs it.
	a := root.post(t, "/admin/jobs/run", form("reclaim"))
	if msg := root.flash(t, a); !strings.Contains(msg, "reclaim: a run is asked for") {
		t.Fatalf("run now: %d, flash %q", a.status, msg)
	}
	if f.jobNow(t, "reclaim").RunRequestedAt == nil {
		t.Fatal("run now asked for no run")
	}
	if e := f.jobEntries(t, "job.run"); len(e) != 1 || e[0] != `root {"job": "reclaim"}` {
		t.Fatalf("run now audited as %q", e)
	}
	doc := page(t, root.get(t, "/admin/jobs"))
	if doc.Find(`[data-testid="job-reclaim"] [data-testid="job-requested"]`).Length() != 1 {
		t.Error("the page does not say a run is asked for")
	}

	// Turning a job off is asked about first: unconfirmed it is 400
	// `unconfirmed` and changes nothing.
	root.unconfirmed(t, "/admin/jobs/disable", form("reclaim"), "turns the reclaim job off", "claims that run out stay out")
	if !f.jobNow(t, "reclaim").Enabled || len(f.jobEntries(t, "job.disable")) != 0 {
		t.Fatal("reclaim turned off unconfirmed")
	}
	a = root.confirmed(t, "/admin/jobs/disable", form("reclaim"), "turns the reclaim job off")
	if msg := root.flash(t, a); !strings.Contains(msg, "reclaim is off") {
		t.Fatalf("confirmed off: %d, flash %q", a.status, msg)
	}
	if f.jobNow(t, "reclaim").Enabled {
		t.Fatal("reclaim still on once confirmed")
	}
	if e := f.jobEntries(t, "job.disable"); len(e) != 1 || e[0] != `root {"job": "reclaim"}` {
		t.Fatalf("turning off audited as %q", e)
	}
	// Off already: nothing to confirm, nothing changed, nothing audited.
	if msg := root.flash(t, root.post(t, "/admin/jobs/disable", form("reclaim"))); !strings.Contains(msg, "off already") {
		t.Errorf("off again: %q", msg)
	}
	if e := f.jobEntries(t, "job.disable"); len(e) != 1 {
		t.Errorf("turning off what was off audited: %q", e)
	}
	a = root.post(t, "/admin/jobs/enable", form("reclaim"))
	if msg := root.flash(t, a); !strings.Contains(msg, "reclaim is on") || !f.jobNow(t, "reclaim").Enabled {
		t.Fatalf("on: %d, flash %q", a.status, msg)
	}
	if e := f.jobEntries(t, "job.enable"); len(e) != 1 || e[0] != `root {"job": "reclaim"}` {
		t.Fatalf("turning on audited as %q", e)
	}

	// A bad interval is 400 `invalid-interval`, shown beside its field
	// with the value sent, and changes nothing.
	for _, bad := range []string{"", "   ", "soon", "30", "-5 s", "500 ms", "0 s", "1 s later", "11 y", "3700 d", "1e400 s",
		"99999999999999999999999 h"} {
		a := root.post(t, "/admin/jobs/every", form("reclaim", "every", bad))
		if a.status != 400 || a.reason != "invalid-interval" {
			t.Errorf("interval %q: %d %q", bad, a.status, a.reason)
			continue
		}
		doc := page(t, a)
		if doc.Find(`[data-testid="every-error"]`).Length() != 1 || doc.Find(`[data-testid="form-error"]`).Length() != 1 {
			t.Errorf("interval %q: no reason shown", bad)
		}
		if v, _ := doc.Find(`[data-testid="every-reclaim"]`).Attr("value"); v != bad {
			t.Errorf("interval %q: the field holds %q", bad, v)
		}
	}
	if j := f.jobNow(t, "reclaim"); j.Every != 30*time.Second {
		t.Fatalf("a refused interval changed reclaim to %s", j.Every)
	}
	if e := f.jobEntries(t, "job.every"); len(e) != 0 {
		t.Fatalf("refused intervals audited: %q", e)
	}
	// As the page shows intervals, or as the command line takes them.
	for _, good := range []struct {
		sent string
		want time.Duration
	}{{"1 min", time.Minute}, {"1h30m", 90 * time.Minute}, {"2 d", 48 * time.Hour}, {"1.5 s", 1500 * time.Millisecond}} {
		a := root.post(t, "/admin/jobs/every", form("reclaim", "every", good.sent))
		if a.status != 303 || f.jobNow(t, "reclaim").Every != good.want {
			t.Errorf("interval %q: %d, now %s", good.sent, a.status, f.jobNow(t, "reclaim").Every)
		}
	}
	if e := f.jobEntries(t, "job.every"); len(e) != 4 || e[3] != `root {"job": "reclaim", "every": {"to": "1m", "from": "30s"}}` {
		t.Fatalf("interval changes audited as %q", e)
	}
	// The interval it has already: nothing changed, nothing audited.
	if msg := root.flash(t, root.post(t, "/admin/jobs/every", form("reclaim", "every", "1.5s"))); !strings.Contains(msg, "already") {
		t.Errorf("the same interval again: %q", msg)
	}
	if e := f.jobEntries(t, "job.every"); len(e) != 4 {
		t.Errorf("an unchanged interval audited: %q", e)
	}
}
