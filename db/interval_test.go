package db_test

import (
	"context"
	"testing"
	"time"

	"tracker/db/dbtest"
)

// Intervals are time.Durations (sqlc.yaml): pgx sends one as microseconds
// and scans an interval into one, a day as 24 hours and a month as 30
// days, and NULL into a nil *time.Duration.
func TestIntervalsAsDurations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	var sent, days time.Duration
	var null *time.Duration
	err := pool.QueryRow(ctx, `SELECT $1::interval, interval '1 month 2 days 3 seconds', NULL::interval`, 90*time.Minute+1500*time.Nanosecond).
		Scan(&sent, &days, &null)
	if err != nil {
		t.Fatal(err)
	}
	if sent != 90*time.Minute+time.Microsecond || days != 32*24*time.Hour+3*time.Second || null != nil {
		t.Fatalf("got %v, %v, %v", sent, days, null)
	}
}
