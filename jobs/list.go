package jobs

import (
	"context"
	"encoding/json"
	"time"

	"tracker/db"
)

// Status is a job's schedule and its last run, as the admin panel shows
// it.
type Status struct {
	Name      string
	Enabled   bool
	Every     time.Duration
	NextRunAt time.Time
	// RunRequestedAt is when an admin asked for a run not started yet.
	RunRequestedAt *time.Time
	// Running: a process holds the job's lock, so a run is under way.
	Running        bool
	LastStartedAt  *time.Time
	LastFinishedAt *time.Time
	LastOutcome    string
	LastError      string
	LastSummary    string
	// Failed are the projects whose step of the last run failed.
	Failed         []ProjectFailure
	Runs, Failures int64
}

// ProjectFailure is a project whose step of a run failed, as recorded.
type ProjectFailure struct {
	Project string `json:"project"` // the slug, or "#ID" once the project has none
	Error   string `json:"error"`
}

// List reads every job's status.
func List(ctx context.Context, conn db.DBTX) ([]Status, error) {
	rows, err := db.Of(conn).JobStatusList(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Status, len(rows))
	for i, j := range rows {
		out[i] = Status{Name: j.Name, Enabled: j.Enabled, Every: j.Every, NextRunAt: j.NextRunAt,
			RunRequestedAt: j.RunRequestedAt, Running: j.Running, LastStartedAt: j.LastStartedAt,
			LastFinishedAt: j.LastFinishedAt, LastOutcome: j.LastOutcome, LastError: j.LastError, LastSummary: j.LastSummary,
			Runs: j.Runs, Failures: j.Failures}
		if err := json.Unmarshal(j.LastFailed, &out[i].Failed); err != nil {
			return nil, err
		}
	}
	return out, nil
}
