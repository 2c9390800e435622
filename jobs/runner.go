package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
	"tracker/loops"
)

// Job is one kind of background work. Run does one pass and says in a few
// words what it did; it works in transactions or idempotent batches, so a
// pass cut short by ctx leaves nothing half-done and the next pass carries
// on.
type Job struct {
	Name string
	// Every is the default interval between the end of one run and the
	// start of the next; operators change it with `tracker jobs set`.
	Every time.Duration
	Run   func(ctx context.Context) (summary string, err error)
}

// Outcomes of a run, as stored in the jobs table.
const (
	OutcomeOK      = "ok"
	OutcomeError   = "error"
	OutcomeStopped = "stopped"
)

// ErrUnknownJob is returned for a job name the runner does not have.
var ErrUnknownJob = errors.New("no such job")

// Runner runs the jobs on their schedule. Every tracker process runs one;
// a job's run is executed by one process at a time, whichever takes the
// job's advisory lock when the job is due, and the jobs table is the
// shared schedule and record.
type Runner struct {
	log  *slog.Logger
	pool *pgxpool.Pool
	q    *db.Queries
	jobs []Job
	// poll is how often each process checks whether a job is due.
	poll time.Duration

	// loops are the jobs' loops, one a job, from Start to Stop.
	loops *loops.Group
}

func NewRunner(log *slog.Logger, pool *pgxpool.Pool, jobs ...Job) *Runner {
	return &Runner{log: log, pool: pool, q: db.Of(pool), jobs: jobs, poll: time.Second}
}

// Jobs lists the runner's jobs.
func (r *Runner) Jobs() []Job { return r.jobs }

// Register makes sure every job has its row in the jobs table.
func (r *Runner) Register(ctx context.Context) error {
	for _, j := range r.jobs {
		if err := r.q.JobEnsure(ctx, db.JobEnsureParams{Name: j.Name, Every: j.Every}); err != nil {
			return fmt.Errorf("registering job %s: %w", j.Name, err)
		}
	}
	return nil
}

// Start registers the jobs and runs each in its own loop until Stop.
func (r *Runner) Start(ctx context.Context) error {
	if err := r.Register(ctx); err != nil {
		return err
	}
	r.loops = loops.NewGroup(ctx)
	for _, j := range r.jobs {
		r.loops.Go(func(ctx context.Context) { r.loop(ctx, j) })
	}
	return nil
}

// Stop ends the loops and waits for the runs in progress, which see their
// context cancelled and stop at the end of their current batch.
func (r *Runner) Stop() {
	if r.loops != nil {
		r.loops.Stop()
	}
}

func (r *Runner) loop(ctx context.Context, j Job) {
	loops.Every(ctx, r.poll, func(ctx context.Context) bool {
		if _, err := r.runIfDue(ctx, j); err != nil && ctx.Err() == nil {
			r.log.Warn("job", "job", j.Name, "err", err)
		}
		return true
	})
}

// runIfDue runs the job when it is due and no other process is running it.
// It reports whether it ran.
func (r *Runner) runIfDue(ctx context.Context, j Job) (bool, error) {
	due, err := r.q.JobDue(ctx, j.Name)
	if err != nil || !due {
		return false, err
	}
	conn, err := r.pool.Acquire(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Release()
	lq := db.Of(conn)
	locked, err := lq.JobTryLock(ctx, j.Name)
	if err != nil || !locked {
		return false, err
	}
	defer r.unlock(lq, conn, j.Name)
	// Another process may have run it between the check and the lock.
	if due, err = lq.JobDue(ctx, j.Name); err != nil || !due {
		return false, err
	}
	return true, r.run(ctx, lq, j)
}

// RunNow runs the job once, now, whatever its schedule, waiting for a run
// in another process to end first.
func (r *Runner) RunNow(ctx context.Context, name string) (summary string, err error) {
	var job *Job
	for i := range r.jobs {
		if r.jobs[i].Name == name {
			job = &r.jobs[i]
		}
	}
	if job == nil {
		return "", fmt.Errorf("%w %q", ErrUnknownJob, name)
	}
	if err := r.Register(ctx); err != nil {
		return "", err
	}
	conn, err := r.pool.Acquire(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Release()
	lq := db.Of(conn)
	if err := lq.JobLock(ctx, name); err != nil {
		return "", err
	}
	defer r.unlock(lq, conn, name)
	if err := r.run(ctx, lq, *job); err != nil {
		return "", err
	}
	row, err := lq.JobGet(ctx, name)
	if err != nil {
		return "", err
	}
	if row.LastOutcome != OutcomeOK {
		return row.LastSummary, fmt.Errorf("job %s: %s: %s", name, row.LastOutcome, row.LastError)
	}
	return row.LastSummary, nil
}

// run runs the job and records the outcome. The returned error is only
// about recording it; the job's own error is recorded and logged.
func (r *Runner) run(ctx context.Context, q *db.Queries, j Job) error {
	if err := q.JobStarted(ctx, j.Name); err != nil {
		return err
	}
	start := time.Now()
	summary, runErr := runSafely(ctx, j)
	outcome, errText := OutcomeOK, ""
	var failedProjects []ProjectFailure
	var failed *ProjectErrors
	if errors.As(runErr, &failed) {
		for _, f := range failed.Failed {
			failedProjects = append(failedProjects, ProjectFailure{Project: f.Project, Error: f.Err.Error()})
		}
	}
	switch {
	case runErr != nil && ctx.Err() != nil:
		outcome, errText = OutcomeStopped, runErr.Error()
	case runErr != nil:
		outcome, errText = OutcomeError, runErr.Error()
		for _, f := range failedProjects {
			r.log.Error("job failed for a project", "job", j.Name, "project", f.Project, "err", f.Error)
		}
		r.log.Error("job failed", "job", j.Name, "err", runErr, "seconds", time.Since(start).Seconds())
	default:
		r.log.Debug("job ran", "job", j.Name, "summary", summary, "seconds", time.Since(start).Seconds())
	}
	// Recorded even when the run was stopped by ctx.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if failedProjects == nil {
		failedProjects = []ProjectFailure{}
	}
	failedDoc, err := json.Marshal(failedProjects)
	if err != nil {
		return err
	}
	return q.JobFinished(rctx, db.JobFinishedParams{Name: j.Name, Outcome: outcome, Error: errText, Summary: summary, Failed: failedDoc})
}

// runSafely turns a panic in a job into its error, so one faulty pass does
// not take the whole tracker process down.
func runSafely(ctx context.Context, j Job) (summary string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return j.Run(ctx)
}

func (r *Runner) unlock(q *db.Queries, conn *pgxpool.Conn, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := q.JobUnlock(ctx, name); err != nil {
		// A session lock we cannot release must not go back to the pool
		// with the connection: close the connection, which releases it.
		r.log.Warn("releasing job lock", "job", name, "err", err)
		_ = conn.Conn().Close(ctx)
	}
}

// Set changes a job's switch and interval.
func Set(ctx context.Context, q *db.Queries, name string, enabled bool, every time.Duration) (db.Job, error) {
	if err := checkEvery(every); err != nil {
		return db.Job{}, err
	}
	j, err := q.JobSet(ctx, db.JobSetParams{Name: name, Enabled: enabled, Every: every})
	if errors.Is(err, pgx.ErrNoRows) {
		return j, fmt.Errorf("%w %q", ErrUnknownJob, name)
	}
	return j, err
}
