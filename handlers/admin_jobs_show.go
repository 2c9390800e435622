package handlers

import (
	"context"
	"errors"
	"net/http"

	"tracker/jobs"
	"tracker/views"
)

// jobInfo is what the jobs page and the confirmation of turning a job off
// say of it: what it does, and what stops while it is off.
type jobInfo struct{ purpose, off string }

var jobInfos = map[string]jobInfo{
	"reclaim": {"Puts claims that ran out back in their queues (or, handed out max_claims times, in error).",
		"claims that run out stay out, so their items are handed out to no one"},
	"revisit": {"Moves the items of recurring projects due for their next visit into their queues.",
		"the items of recurring projects due for a visit wait, and no warrior gets them"},
	"archive": {"Turns old days of completions into archive files (or discards them) and drops them from the database.",
		"completions stay in the database, which grows"},
	"rollup": {"Folds completions into the downloaders' totals, the charts and the leaderboards.",
		"leaderboards, charts and totals stand still (the items are still done and counted)"},
	"housekeeping": {"Makes completion partitions a week ahead; drops expired sessions, old audit entries and other old records.",
		"no completion partitions are made ahead, and expired sessions, old audit entries and absent warriors are kept"},
	"purge": {"Removes the rows of deleted projects.",
		"the rows of deleted projects stay in the database"},
}

// jobsRefusal is the jobs page after a refused interval: the job, the
// value sent and why.
type jobsRefusal struct {
	job, value, err string
}

// adminJobs is GET /admin/jobs: every background job with its interval,
// its last run (when, how long, how it went, the projects it failed on)
// and its next; global admins run, switch and time them from here. With
// live=1, the table alone, as the page refreshes itself.
func (h *Handler) adminJobs(w http.ResponseWriter, r *http.Request) error {
	return h.renderJobs(w, r, http.StatusOK, jobsRefusal{})
}

func (h *Handler) renderJobs(w http.ResponseWriter, r *http.Request, status int, refusal jobsRefusal) error {
	ctx, a := r.Context(), account(r)
	js, err := jobs.List(ctx, h.adm.pool)
	if err != nil {
		return err
	}
	ps, err := h.adm.projects.List(ctx)
	if err != nil {
		return err
	}
	ids := map[string]int32{}
	for _, p := range ps {
		ids[p.Slug] = p.ID
	}
	v := views.AdminJobsView{AdminPage: h.adminPageOf(r), CanChange: a.IsAdmin()}
	if refusal.err != "" {
		v.Flash, v.Error = "", "Nothing was changed: "+refusal.err
	}
	for _, j := range js {
		row := views.AdminJob{Name: j.Name, Purpose: jobInfos[j.Name].purpose, Enabled: j.Enabled, Every: j.Every,
			EveryValue: views.FormatDuration(j.Every), NextRunAt: j.NextRunAt, RunRequested: j.RunRequestedAt != nil,
			Running: j.Running, LastStartedAt: j.LastStartedAt, LastFinishedAt: j.LastFinishedAt, LastOutcome: j.LastOutcome,
			LastError: j.LastError, LastSummary: j.LastSummary, Runs: j.Runs, Failures: j.Failures}
		if refusal.job == j.Name {
			row.EveryValue, row.EveryError = refusal.value, refusal.err
		}
		for _, f := range j.Failed {
			// A project admin reads of the projects they run alone; a
			// deleted project ("#ID") is a global admin's.
			id, exists := ids[f.Project]
			switch {
			case exists && a.CanRun(id):
				row.Failed = append(row.Failed, views.AdminJobFailure{Project: f.Project, URL: projectURL(f.Project, ""), Error: f.Error})
			case a.IsAdmin():
				row.Failed = append(row.Failed, views.AdminJobFailure{Project: f.Project, Error: f.Error})
			default:
				row.OtherFailed++
			}
		}
		if !a.IsAdmin() && len(j.Failed) > 0 {
			// The run's one-line error names every project that failed.
			row.LastError = ""
		}
		v.Jobs = append(v.Jobs, row)
	}
	if live(r) {
		return render(w, r, status, views.AdminJobsLive(v))
	}
	return render(w, r, status, views.AdminLayout("Jobs", views.AdminJobs(v)))
}

// jobForm reads the form of a change to a job (global admins only) and
// the job it names.
func (h *Handler) jobForm(w http.ResponseWriter, r *http.Request) (jobs.Status, error) {
	if err := globalOnly(r); err != nil {
		return jobs.Status{}, err
	}
	if err := parseSmallForm(w, r); err != nil {
		return jobs.Status{}, err
	}
	return h.job(r.Context(), r.PostForm.Get("job"))
}

// job is the status of the job named.
func (h *Handler) job(ctx context.Context, name string) (jobs.Status, error) {
	js, err := jobs.List(ctx, h.pool)
	if err != nil {
		return jobs.Status{}, err
	}
	for _, j := range js {
		if j.Name == name {
			return j, nil
		}
	}
	return jobs.Status{}, unknownJob(name)
}

func unknownJob(name string) error {
	return errorf(http.StatusNotFound, "unknown-job", "no job %q", name)
}

// jobChanged answers a change to a job that ended with err: back to the
// jobs page with msg.
func (h *Handler) jobChanged(w http.ResponseWriter, r *http.Request, name, msg string, err error) error {
	if errors.Is(err, jobs.ErrUnknownJob) {
		return unknownJob(name)
	}
	if err != nil {
		return err
	}
	return h.redirectWithFlash(w, r, "/admin/jobs", msg)
}
