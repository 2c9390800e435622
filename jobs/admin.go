package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"tracker/audit"
	"tracker/db"
)

// The changes an admin makes to the schedule from the panel, each
// recorded in the audit log in its own transaction, in the name of the
// context's actor (audit.NewContext).

// The intervals a job runs at: at least a second (the runner looks once a
// second), at most ten years, as the longest durations of a project's
// configuration.
const (
	MinEvery = time.Second
	MaxEvery = 316_224_000 * time.Second
)

// ErrInterval is an interval outside MinEvery..MaxEvery.
var ErrInterval = errors.New("an interval is at least 1s and at most ten years (87840h)")

func checkEvery(every time.Duration) error {
	if every < MinEvery || every > MaxEvery {
		return fmt.Errorf("interval %s: %w", every, ErrInterval)
	}
	return nil
}

// SetEnabled switches the job on or off (audited as job.enable or
// job.disable) and says whether that changed anything: switching a job
// to what it is records nothing.
func SetEnabled(ctx context.Context, pool db.TxStarter, name string, enabled bool) (changed bool, err error) {
	err = change(ctx, pool, name, func(q *db.Queries, j db.Job) error {
		if changed = j.Enabled != enabled; !changed {
			return nil
		}
		if _, err := q.JobSet(ctx, db.JobSetParams{Name: name, Enabled: enabled, Every: j.Every}); err != nil {
			return err
		}
		action := "job.disable"
		if enabled {
			action = "job.enable"
		}
		return audit.Record(ctx, q, action, 0, map[string]any{"job": name})
	})
	return changed, err
}

// SetEvery sets the job's interval (audited as job.every, from and to)
// and says whether that changed it. The next run comes no later than an
// interval from now.
func SetEvery(ctx context.Context, pool db.TxStarter, name string, every time.Duration) (changed bool, err error) {
	if err := checkEvery(every); err != nil {
		return false, err
	}
	err = change(ctx, pool, name, func(q *db.Queries, j db.Job) error {
		old := j.Every
		if changed = old != every; !changed {
			return nil
		}
		if _, err := q.JobSet(ctx, db.JobSetParams{Name: name, Enabled: j.Enabled, Every: every}); err != nil {
			return err
		}
		return audit.Record(ctx, q, "job.every", 0, map[string]any{"job": name,
			"every": map[string]any{"from": EveryText(old), "to": EveryText(every)}})
	})
	return changed, err
}

// RequestRun asks for a run of the job (audited as job.run): the first
// tracker process to find it due, within a second, runs it once, switched
// on or not, after a run in progress ends.
func RequestRun(ctx context.Context, pool db.TxStarter, name string) error {
	return change(ctx, pool, name, func(q *db.Queries, _ db.Job) error {
		if _, err := q.JobRequestRun(ctx, name); err != nil {
			return err
		}
		return audit.Record(ctx, q, "job.run", 0, map[string]any{"job": name})
	})
}

// change runs fn on the job's row, held until the transaction commits.
func change(ctx context.Context, pool db.TxStarter, name string, fn func(*db.Queries, db.Job) error) error {
	return db.WithTx(ctx, pool, func(q *db.Queries) error {
		j, err := q.JobGetForUpdate(ctx, name)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%w %q", ErrUnknownJob, name)
		}
		if err != nil {
			return err
		}
		return fn(q, j)
	})
}

// EveryText is an interval as the jobs commands take it, without its
// empty units: "30s", "10m", "1h30m".
func EveryText(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
