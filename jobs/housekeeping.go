package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
	"tracker/db/drivers"
	"tracker/projects"
	"tracker/volunteers"
	"tracker/warriors"
)

// BackfeedMinutesKept is how long the new items per backfeed shard and
// minute are kept: the board shows the last hour, and the rest is there to
// look back on a day's posts in the database, as long as the completions'
// minute series.
const BackfeedMinutesKept = 48 * time.Hour

// ExpiriesKept is how long expired claims are remembered, for the
// downloaders' records; those of items in the error queue stay while the
// items do.
const ExpiriesKept = 30 * 24 * time.Hour

// expiriesBatch bounds one delete of old expiries.
const expiriesBatch = 10_000

// Housekeeping creates the completion partitions of the days ahead, drops
// expired web sessions, audit entries older than auditKept, day-old
// failed logins, backfeed minutes older than BackfeedMinutesKept, expired
// claims older than ExpiriesKept, and the records of warriors not seen for
// warriors.Kept; and replaces the volunteers' secret when it is due,
// forgetting the marks that expired.
//
// The partitions are made project by project (see EnsurePartitions). The
// other steps are one statement across every project each, as they pick
// rows by age alone: no project's rows can make them fail (they do no
// arithmetic on stored values and a delete violates no constraint). Each
// step runs whatever became of the others, and the run's error names
// every step (and project) that failed.
func Housekeeping(pool *pgxpool.Pool, store *projects.Store, auditKept time.Duration) Job {
	q := db.Of(pool)
	warriorStore := warriors.NewStore(pool)
	counter := volunteers.New(pool)
	return Job{
		Name:  "housekeeping",
		Every: time.Hour,
		Run: func(ctx context.Context) (string, error) {
			var errs []error
			step := func(name string, err error) {
				if err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", name, err))
				}
			}
			partitions := "partitions ensured"
			if err := EnsurePartitions(ctx, store, time.Now()); err != nil {
				var failed *ProjectErrors
				if errors.As(err, &failed) {
					partitions = fmt.Sprintf("partitions ensured but for %s", strings.Join(failed.Names(), ", "))
				}
				step("partitions", err)
			}
			sessions, err := q.SessionsDeleteExpired(ctx)
			step("sessions", err)
			audit, err := q.AuditLogPrune(ctx, auditKept)
			step("audit log", err)
			_, err = q.LoginFailuresPrune(ctx)
			step("failed logins", err)
			_, err = q.BackfeedMinutesPrune(ctx, BackfeedMinutesKept)
			step("backfeed minutes", err)
			d, err := drivers.Of(ctx, q.DB())
			step("claim expiries", err)
			for err == nil && ctx.Err() == nil {
				n, err := d.ClaimExpiriesPrune(ctx, q, db.ClaimExpiriesPruneParams{
					Keep: ExpiriesKept, Max: expiriesBatch})
				step("claim expiries", err)
				if err != nil || n < expiriesBatch {
					break
				}
			}
			step("volunteers", counter.Rotate(ctx))
			gone, err := warriorStore.Prune(ctx, time.Now())
			step("warriors", err)
			return fmt.Sprintf("%s, %d expired sessions, %d old audit entries and %d absent warriors dropped", partitions, sessions, audit, gone),
				errors.Join(errs...)
		},
	}
}
