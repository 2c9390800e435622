package handlers

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

var (
	warriorsByProject = prometheus.NewDesc("tracker_warriors_online",
		"Warriors that reported to the warrior HQ in the last 15 minutes, by selected project (auto, (none), or (other) for projects not listed publicly).",
		[]string{"project"}, nil)
	warriorsByVersion = prometheus.NewDesc("tracker_warriors_online_by_seesaw_version",
		"Warriors that reported to the warrior HQ in the last 15 minutes, by seesaw version ((unknown) when the warrior named none).",
		[]string{"seesaw_version"}, nil)
)

// warriorCollector reports the warriors online, read at most once a second
// however often it is scraped.
type warriorCollector struct {
	h      *Handler
	cached cachedMetrics
}

func (c *warriorCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- warriorsByProject
	ch <- warriorsByVersion
}

func (c *warriorCollector) Collect(ch chan<- prometheus.Metric) {
	c.cached.send(ch, warriorsByProject, c.collect)
}

func (c *warriorCollector) collect() ([]prometheus.Metric, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	o, _, err := c.h.warriorsOnline(ctx, time.Now())
	if err != nil {
		return nil, err
	}
	var ms []prometheus.Metric
	for project, n := range o.Projects {
		if project == "" {
			project = "(none)"
		}
		ms = append(ms, prometheus.MustNewConstMetric(warriorsByProject, prometheus.GaugeValue, float64(n), project))
	}
	for version, n := range o.Versions {
		if version == "" {
			version = "(unknown)"
		}
		ms = append(ms, prometheus.MustNewConstMetric(warriorsByVersion, prometheus.GaugeValue, float64(n), version))
	}
	return ms, nil
}
