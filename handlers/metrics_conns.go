package handlers

import (
	"github.com/prometheus/client_golang/prometheus"

	"tracker/conns"
)

var (
	connsOpen    = prometheus.NewDesc("tracker_connections", "Client connections open, by state (idle: between requests).", []string{"state"}, nil)
	connsRefused = prometheus.NewDesc("tracker_connections_refused_total", "Connections answered 503 too-many-connections: their address held its share.", nil, nil)
	connsShed    = prometheus.NewDesc("tracker_connections_shed_total", "Idle connections closed to make room for new ones.", nil, nil)
)

// connCollector reports a listener's connections at each scrape.
type connCollector struct{ l *conns.Listener }

func (c connCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- connsOpen
	ch <- connsRefused
	ch <- connsShed
}

func (c connCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.l.Stats()
	ch <- prometheus.MustNewConstMetric(connsOpen, prometheus.GaugeValue, float64(s.Open-s.Idle), "active")
	ch <- prometheus.MustNewConstMetric(connsOpen, prometheus.GaugeValue, float64(s.Idle), "idle")
	ch <- prometheus.MustNewConstMetric(connsRefused, prometheus.CounterValue, float64(s.Refused))
	ch <- prometheus.MustNewConstMetric(connsShed, prometheus.CounterValue, float64(s.Shed))
}
