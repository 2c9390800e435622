package handlers_test

import (
	"strings"
	"testing"
)

// An address asking for work counts once as a volunteer, on the board, the
// home page and /metrics.
func TestVolunteersShown(t *testing.T) {
	t.Parallel()
	f := setup(t, "a", "b")
	for range 3 {
		f.do(t, "POST", "/test/request", `{"downloader":"alice"}`)
	}
	if a := f.do(t, "GET", "/test/stats.json", ""); !strings.Contains(a.body, `"volunteers":{"month":1,"last_30d":1}`) {
		t.Fatalf("stats.json: %s", a.body)
	}
	if a := f.do(t, "GET", "/", ""); !strings.Contains(a.body, "<strong>1</strong> volunteer in the last 30 days") {
		t.Fatal("the home page does not count the volunteer")
	}
	body := f.metrics(t)
	if v, ok := metricValue(t, body, "tracker_volunteers", map[string]string{"window": "30d"}); !ok || v != 1 {
		t.Fatalf("tracker_volunteers: %v", v)
	}
	if v, ok := metricValue(t, body, "tracker_project_volunteers", map[string]string{"project": "test", "window": "month"}); !ok || v != 1 {
		t.Fatalf("tracker_project_volunteers: %v", v)
	}
}
