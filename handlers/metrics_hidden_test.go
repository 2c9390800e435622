package handlers_test

import (
	"strings"
	"testing"

	"tracker/db/dbtest"
)

// /metrics is public: a hidden project's name and counts stay out of it.
func TestMetricsLeaveHiddenProjectsOut(t *testing.T) {
	t.Parallel()
	f := setup(t, "item:1")
	dbtest.Project(t, f.pool, "secret", "", "hidden=true")
	body := f.metrics(t)
	if _, ok := metricValue(t, body, "tracker_project_queue_items", map[string]string{"project": "test", "queue": "todo"}); !ok {
		t.Error("the public project is missing")
	}
	if strings.Contains(body, `"secret"`) {
		t.Error("the hidden project is named in /metrics")
	}
}
