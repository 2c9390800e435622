package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
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
func Housekeeping(pool *pgxpool.Pool, store *projects.Store, auditKept time.Duration) Job {
	q := db.New(pool)
	warriorStore := warriors.NewStore(pool)
	counter := volunteers.New(pool)
	return Job{
		Name:  "housekeeping",
		Every: time.Hour,
		Run: func(ctx context.Context) (string, error) {
			if err := EnsurePartitions(ctx, store, time.Now()); err != nil {
				return "", err
			}
			sessions, err := q.SessionsDeleteExpired(ctx)
			if err != nil {
				return "", err
			}
			audit, err := q.AuditLogPrune(ctx, pgtype.Interval{Microseconds: auditKept.Microseconds(), Valid: true})
			if err != nil {
				return "", err
			}
			if _, err := q.LoginFailuresPrune(ctx); err != nil {
				return "", err
			}
			if _, err := q.BackfeedMinutesPrune(ctx, pgtype.Interval{Microseconds: BackfeedMinutesKept.Microseconds(), Valid: true}); err != nil {
				return "", err
			}
			for ctx.Err() == nil {
				n, err := q.ClaimExpiriesPrune(ctx, db.ClaimExpiriesPruneParams{
					Keep: pgtype.Interval{Microseconds: ExpiriesKept.Microseconds(), Valid: true}, Max: expiriesBatch})
				if err != nil {
					return "", err
				}
				if n < expiriesBatch {
					break
				}
			}
			if err := counter.Rotate(ctx); err != nil {
				return "", err
			}
			gone, err := warriorStore.Prune(ctx, time.Now())
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("partitions ensured, %d expired sessions, %d old audit entries and %d absent warriors dropped", sessions, audit, gone), nil
		},
	}
}
