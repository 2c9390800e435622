package handlers

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"tracker/conns"
)

var (
	connsOpen    = prometheus.NewDesc("tracker_connections", "Client connections open, by state (idle: between requests).", []string{"state"}, nil)
	connsRefused = prometheus.NewDesc("tracker_connections_refused_total", "Connections answered 503 too-many-connections: their address held its share.", nil, nil)
	connsShed    = prometheus.NewDesc("tracker_connections_shed_total", "Idle connections closed to make room for new ones.", nil, nil)
)

// listeners are the listeners a Handler serves (Listen), whose
// connections the metrics report.
type listeners struct {
	mu  sync.Mutex
	all []*conns.Listener
}

func (ls *listeners) add(l *conns.Listener) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.all = append(ls.all, l)
}

// stats are the listeners' counts added up.
func (ls *listeners) stats() conns.Stats {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	var sum conns.Stats
	for _, l := range ls.all {
		s := l.Stats()
		sum.Open += s.Open
		sum.Idle += s.Idle
		sum.Refused += s.Refused
		sum.Shed += s.Shed
	}
	return sum
}

// connCollector reports the listeners' connections at each scrape.
type connCollector struct{ ls *listeners }

func (c connCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- connsOpen
	ch <- connsRefused
	ch <- connsShed
}

func (c connCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.ls.stats()
	ch <- prometheus.MustNewConstMetric(connsOpen, prometheus.GaugeValue, float64(s.Open-s.Idle), "active")
	ch <- prometheus.MustNewConstMetric(connsOpen, prometheus.GaugeValue, float64(s.Idle), "idle")
	ch <- prometheus.MustNewConstMetric(connsRefused, prometheus.CounterValue, float64(s.Refused))
	ch <- prometheus.MustNewConstMetric(connsShed, prometheus.CounterValue, float64(s.Shed))
}
