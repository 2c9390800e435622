package jobs

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"tracker/db"
)

// Collector reports every job's schedule and last run, from the jobs table
// (so every tracker process reports the same, whichever ran the job).
type Collector struct{ q *db.Queries }

func NewCollector(pool *pgxpool.Pool) Collector { return Collector{q: db.Of(pool)} }

var (
	jobEnabled  = prometheus.NewDesc("tracker_job_enabled", "1 when the job is switched on.", []string{"job"}, nil)
	jobRuns     = prometheus.NewDesc("tracker_job_runs_total", "Runs of the job, by every process.", []string{"job"}, nil)
	jobFailures = prometheus.NewDesc("tracker_job_failures_total", "Runs of the job that failed.", []string{"job"}, nil)
	jobLastEnd  = prometheus.NewDesc("tracker_job_last_finished_timestamp_seconds", "When the job's last run ended.", []string{"job"}, nil)
	jobLastDur  = prometheus.NewDesc("tracker_job_last_duration_seconds", "How long the job's last run took.", []string{"job"}, nil)
	jobLastOK   = prometheus.NewDesc("tracker_job_last_success", "1 when the job's last run ended well.", []string{"job"}, nil)
)

func (c Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{jobEnabled, jobRuns, jobFailures, jobLastEnd, jobLastDur, jobLastOK} {
		ch <- d
	}
}

func (c Collector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	js, err := c.q.JobList(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(jobRuns, err)
		return
	}
	flag := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	for _, j := range js {
		ch <- prometheus.MustNewConstMetric(jobEnabled, prometheus.GaugeValue, flag(j.Enabled), j.Name)
		ch <- prometheus.MustNewConstMetric(jobRuns, prometheus.CounterValue, float64(j.Runs), j.Name)
		ch <- prometheus.MustNewConstMetric(jobFailures, prometheus.CounterValue, float64(j.Failures), j.Name)
		if j.LastFinishedAt != nil && j.LastStartedAt != nil {
			ch <- prometheus.MustNewConstMetric(jobLastEnd, prometheus.GaugeValue, float64(j.LastFinishedAt.Unix()), j.Name)
			ch <- prometheus.MustNewConstMetric(jobLastDur, prometheus.GaugeValue, j.LastFinishedAt.Sub(*j.LastStartedAt).Seconds(), j.Name)
			ch <- prometheus.MustNewConstMetric(jobLastOK, prometheus.GaugeValue, flag(j.LastOutcome == OutcomeOK), j.Name)
		}
	}
}
