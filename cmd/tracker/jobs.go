package main

import (
	"cmp"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"tracker/archive"
	"tracker/db"
	"tracker/items"
	"tracker/jobs"
	"tracker/projects"
	"tracker/stats"
)

// jobRunner builds the runner of every background job, for serve and for
// the jobs commands alike. The reclaim and revisit jobs have an engine of
// their own: the engines of the web server learn of the items they put back
// from the project's counters.
func (a *app) jobRunner(d *database) *jobs.Runner {
	store := projects.NewStore(d.pool)
	engine := items.NewEngine(d.pool, a.log)
	archiver := archive.New(d.pool, a.cfg.ArchiveDir)
	return jobs.NewRunner(a.log, d.pool,
		jobs.Reclaim(store, engine),
		jobs.Revisit(store, engine),
		jobs.Archive(store, archiver),
		jobs.Rollup(stats.NewStore(d.pool)),
		jobs.Housekeeping(d.pool, store, a.cfg.AuditRetention),
		jobs.Purge(d.pool, store, engine, archiver),
	)
}

// jobJSON is a job as `tracker jobs` prints it.
type jobJSON struct {
	Name           string     `json:"name"`
	Enabled        bool       `json:"enabled"`
	Every          string     `json:"every"`
	NextRunAt      time.Time  `json:"next_run_at"`
	LastStartedAt  *time.Time `json:"last_started_at"`
	LastFinishedAt *time.Time `json:"last_finished_at"`
	LastOutcome    string     `json:"last_outcome"`
	LastError      string     `json:"last_error,omitempty"`
	LastSummary    string     `json:"last_summary"`
	// LastFailed are the projects the last run failed on, with why.
	LastFailed     json.RawMessage `json:"last_failed"`
	RunRequestedAt *time.Time      `json:"run_requested_at,omitempty"`
	Runs           int64           `json:"runs"`
	Failures       int64           `json:"failures"`
}

func newJobJSON(j db.Job) jobJSON {
	return jobJSON{
		Name: j.Name, Enabled: j.Enabled, Every: j.Every.String(),
		NextRunAt: j.NextRunAt, LastStartedAt: j.LastStartedAt, LastFinishedAt: j.LastFinishedAt,
		LastOutcome: j.LastOutcome, LastError: j.LastError, LastSummary: j.LastSummary, LastFailed: j.LastFailed,
		RunRequestedAt: j.RunRequestedAt, Runs: j.Runs, Failures: j.Failures,
	}
}

func printJSON(a *app, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	printf(a, "%s\n", b)
	return nil
}

// printJSONLine prints v as one line of JSON.
func printJSONLine(a *app, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	printf(a, "%s\n", b)
	return nil
}

func runJobsList(ctx context.Context, a *app, _ []string) error {
	return a.withDatabase(ctx, func(d *database) error {
		if err := a.jobRunner(d).Register(ctx); err != nil {
			return err
		}
		js, err := db.Of(d.pool).JobList(ctx)
		if err != nil {
			return err
		}
		out := make([]jobJSON, len(js))
		for i, j := range js {
			out[i] = newJobJSON(j)
		}
		return printJSON(a, out)
	})
}

func runJobsRun(ctx context.Context, a *app, args []string) error {
	return a.withDatabase(ctx, func(d *database) error {
		r := a.jobRunner(d)
		summary, err := r.RunNow(ctx, args[0])
		if errors.Is(err, jobs.ErrUnknownJob) {
			return &usageError{err.Error()}
		}
		if err != nil {
			return err
		}
		printf(a, "%s: %s\n", args[0], summary)
		return nil
	})
}

// jobsSetOptions are the flags of jobs set: what is not given is unchanged.
type jobsSetOptions struct {
	Enabled *bool         // --enabled
	Every   time.Duration // --every; 0: not given
}

func runJobsSet(ctx context.Context, a *app, args []string, o jobsSetOptions) error {
	return a.withDatabase(ctx, func(d *database) error {
		if err := a.jobRunner(d).Register(ctx); err != nil {
			return err
		}
		q := db.Of(d.pool)
		j, err := q.JobGet(ctx, args[0])
		if err != nil {
			return &usageError{fmt.Sprintf("%v %q", jobs.ErrUnknownJob, args[0])}
		}
		enabled, every := j.Enabled, j.Every
		if o.Enabled != nil {
			enabled = *o.Enabled
		}
		every = cmp.Or(o.Every, every)
		j, err = jobs.Set(ctx, q, args[0], enabled, every)
		if err != nil {
			return err
		}
		return printJSON(a, newJobJSON(j))
	})
}

// archiveJSON is an archive as `tracker archive list` prints it.
type archiveJSON struct {
	Day         string     `json:"day"`
	Mode        string     `json:"mode"`
	Path        string     `json:"path,omitempty"`
	Items       int64      `json:"items"`
	Bytes       int64      `json:"bytes"`
	FirstDoneAt *time.Time `json:"first_done_at"`
	LastDoneAt  *time.Time `json:"last_done_at"`
	SHA256      string     `json:"sha256,omitempty"`
	FileSize    int64      `json:"file_size,omitempty"`
}

// withArchive runs fn with the project named by args[0] and its archiver.
func (a *app) withArchive(ctx context.Context, slug string, fn func(*archive.Archiver, projects.Project) error) error {
	return a.withDatabase(ctx, func(d *database) error {
		p, err := projects.NewStore(d.pool).Get(ctx, slug)
		if err != nil {
			return err
		}
		return fn(archive.New(d.pool, a.cfg.ArchiveDir), p)
	})
}

func runArchiveList(ctx context.Context, a *app, args []string) error {
	return a.withArchive(ctx, args[0], func(arc *archive.Archiver, p projects.Project) error {
		as, err := arc.List(ctx, p)
		if err != nil {
			return err
		}
		out := make([]archiveJSON, len(as))
		for i, x := range as {
			out[i] = archiveJSON{
				Day: x.Day.Format(time.DateOnly), Mode: x.Mode, Path: x.Path, Items: x.Items, Bytes: x.Bytes,
				FirstDoneAt: x.FirstDoneAt, LastDoneAt: x.LastDoneAt, SHA256: hex.EncodeToString(x.Sha256), FileSize: x.FileSize,
			}
		}
		return printJSON(a, out)
	})
}

func runArchiveVerify(ctx context.Context, a *app, args []string) error {
	return a.withArchive(ctx, args[0], func(arc *archive.Archiver, p projects.Project) error {
		as, err := arc.List(ctx, p)
		if err != nil {
			return err
		}
		var failed int
		for _, x := range as {
			if err := arc.Verify(x); err != nil {
				failed++
				printf(a, "FAILED %s: %v\n", x.Day.Format(time.DateOnly), err)
				continue
			}
			printf(a, "ok     %s %s\n", x.Day.Format(time.DateOnly), x.Path)
		}
		if failed > 0 {
			return fmt.Errorf("%d of %d archives failed", failed, len(as))
		}
		return nil
	})
}

func runArchiveExport(ctx context.Context, a *app, args []string) error {
	return a.withArchive(ctx, args[0], func(arc *archive.Archiver, p projects.Project) error {
		_, err := arc.Export(ctx, a.io.out, p)
		return err
	})
}
