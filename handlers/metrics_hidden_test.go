package handlers_test

import (
	"context"
	"strings"
	"testing"
)

// /metrics is public: a hidden project's name and counts stay out of it.
func TestMetricsLeaveHiddenProjectsOut(t *testing.T) {
	t.Parallel()
	f := setup(t, "item:1")
	ctx := context.Background()
	secret, err := f.store.Create(ctx, "secret", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.Set(ctx, secret, []string{"hidden=true"}); err != nil {
		t.Fatal(err)
	}
	body := f.metrics(t)
	if _, ok := metricValue(t, body, "tracker_project_queue_items", map[string]string{"project": "test", "queue": "todo"}); !ok {
		t.Error("the public project is missing")
	}
	if strings.Contains(body, `"secret"`) {
		t.Error("the hidden project is named in /metrics")
	}
}
