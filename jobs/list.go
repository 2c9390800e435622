package jobs

import (
	"context"
	"time"

	"tracker/db"
)

// Status is a job's schedule and its last run, as the admin dashboard
// shows it.
type Status struct {
	Name           string
	Enabled        bool
	Every          time.Duration
	LastFinishedAt *time.Time
	LastOutcome    string
	LastError      string
	LastSummary    string
	Runs, Failures int64
}

// List reads every job's status.
func List(ctx context.Context, conn db.DBTX) ([]Status, error) {
	rows, err := db.New(conn).JobList(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Status, len(rows))
	for i, j := range rows {
		out[i] = Status{Name: j.Name, Enabled: j.Enabled, Every: j.Every,
			LastFinishedAt: j.LastFinishedAt, LastOutcome: j.LastOutcome, LastError: j.LastError, LastSummary: j.LastSummary,
			Runs: j.Runs, Failures: j.Failures}
	}
	return out, nil
}
