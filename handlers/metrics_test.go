package handlers_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// metrics reads /metrics.
func (f fixture) metrics(t *testing.T) string {
	t.Helper()
	// The default client asks for gzip and decompresses.
	resp, err := http.Get(f.srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("/metrics: %d %v", resp.StatusCode, err)
	}
	return string(b)
}

// metricValue finds the value of a metric with the given labels in a
// Prometheus text exposition.
func metricValue(t *testing.T, body, name string, labels map[string]string) (float64, bool) {
	t.Helper()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	fam, ok := families[name]
	if !ok {
		return 0, false
	}
next:
	for _, m := range fam.GetMetric() {
		for k, v := range labels {
			found := false
			for _, l := range m.GetLabel() {
				if l.GetName() == k && l.GetValue() == v {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount()), true
		}
	}
	return 0, false
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	f := setup(t, "item:1", "item:2", "item:3")
	f.do(t, "POST", "/test/request", `{"downloader":"alice"}`)
	f.do(t, "POST", "/test/done", `{"downloader":"alice","item":"item:1","bytes":{"data":10}}`)
	f.do(t, "POST", "/test/request", `{"downloader":"bob"}`)
	f.do(t, "GET", "/no/such/page/at/all", "")
	f.do(t, "GET", "/test/items/item:9.json", "")

	body := f.metrics(t)
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"tracker_http_requests_total", map[string]string{"route": "request", "code": "200"}, 2},
		{"tracker_http_requests_total", map[string]string{"route": "done", "code": "200"}, 1},
		{"tracker_http_requests_total", map[string]string{"route": "other", "code": "404"}, 1},
		{"tracker_http_requests_total", map[string]string{"route": "item", "code": "404"}, 1},
		{"tracker_http_request_duration_seconds", map[string]string{"route": "request"}, 2},
		{"tracker_project_queue_items", map[string]string{"project": "test", "queue": "todo"}, 1},
		{"tracker_project_claims", map[string]string{"project": "test"}, 1},
		{"tracker_project_done_items_total", map[string]string{"project": "test"}, 1},
		{"tracker_project_done_bytes_total", map[string]string{"project": "test"}, 10},
		{"tracker_db_pool_max_conns", nil, 24},
	} {
		got, ok := metricValue(t, body, c.name, c.labels)
		if !ok || got != c.want {
			t.Errorf("%s%v = %v (found %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
}
