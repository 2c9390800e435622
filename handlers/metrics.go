package handlers

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"tracker/projects"
	"tracker/sites"
	"tracker/volunteers"
)

// metrics are the Prometheus metrics of one Handler, in a registry of its
// own (not the global one: tests build many handlers).
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newMetrics(pool *pgxpool.Pool, store *projects.Store, counter *volunteers.Counter, frontier *sites.Store) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tracker_http_requests_total",
			Help: "HTTP requests answered, by route and status code.",
		}, []string{"route", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "tracker_http_request_duration_seconds",
			Help:    "Time to answer HTTP requests, by route (live streams: until they end).",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route"}),
	}
	m.registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requests, m.duration,
		newPoolCollector(pool, "tracker_db_pool", ""),
		&projectCollector{store: store, volunteers: counter, sites: frontier},
	)
	return m
}

// routeKey holds, in a request's context, its statusRecorder: where its
// route's name goes, and what became of its answer.
type routeKey struct{}

// statusClientGone is what the metrics record of a request whose client
// went away before its answer: nobody reads it, so none is written (see
// serveError).
const statusClientGone = 499

// measure counts and times every request. The route's name is set by the
// handler the request reaches (named); requests no route takes stay
// "other", so made-up paths cannot grow the label set.
func (m *metrics) measure(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK, route: "other"}
		// Deferred: a request whose client is gone ends in a panic that
		// aborts its answer (http.ErrAbortHandler), and is counted too.
		defer func() {
			code := rec.status
			if rec.gone {
				code = statusClientGone
			}
			m.requests.WithLabelValues(rec.route, strconv.Itoa(code)).Inc()
			m.duration.WithLabelValues(rec.route).Observe(time.Since(start).Seconds())
		}()
		next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), routeKey{}, rec)))
	})
}

// named marks the requests next serves as route name.
func named(name string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rec := recorderOf(r); rec != nil {
			rec.route = name
		}
		next.ServeHTTP(w, r)
	})
}

// recorderOf is the statusRecorder of r (nil outside measure).
func recorderOf(r *http.Request) *statusRecorder {
	rec, _ := r.Context().Value(routeKey{}).(*statusRecorder)
	return rec
}

// statusRecorder remembers the status a handler wrote, and whether its
// client went away before it could. It unwraps for http.ResponseController
// (the live stream flushes through it).
type statusRecorder struct {
	http.ResponseWriter
	status      int
	wroteHeader bool
	route       string
	gone        bool
}

func (s *statusRecorder) WriteHeader(code int) {
	if !s.wroteHeader {
		s.status, s.wroteHeader = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	s.wroteHeader = true
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// poolCollector reports a database pool's state at each scrape: the web
// requests' (tracker_db_pool_*) or the public read routes'
// (tracker_db_reader_pool_*).
type poolCollector struct {
	pool                                    *pgxpool.Pool
	conns, max, acquires, wait, empty, gave *prometheus.Desc
}

// newPoolCollector names the pool's metrics prefix_*, their help ending in
// of (" of the public read routes' pool", or "" for the web pool).
func newPoolCollector(pool *pgxpool.Pool, prefix, of string) poolCollector {
	return poolCollector{pool: pool,
		conns:    prometheus.NewDesc(prefix+"_conns", "Database connections by state"+of+".", []string{"state"}, nil),
		max:      prometheus.NewDesc(prefix+"_max_conns", "Most database connections the pool opens"+of+".", nil, nil),
		acquires: prometheus.NewDesc(prefix+"_acquires_total", "Connections taken from the pool"+of+".", nil, nil),
		wait:     prometheus.NewDesc(prefix+"_acquire_wait_seconds_total", "Time spent waiting for a connection"+of+".", nil, nil),
		empty:    prometheus.NewDesc(prefix+"_empty_acquires_total", "Acquires that had to wait for a connection"+of+".", nil, nil),
		gave:     prometheus.NewDesc(prefix+"_canceled_acquires_total", "Acquires given up before a connection came"+of+".", nil, nil),
	}
}

func (c poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.conns, c.max, c.acquires, c.wait, c.empty, c.gave} {
		ch <- d
	}
}

func (c poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.pool.Stat()
	ch <- prometheus.MustNewConstMetric(c.conns, prometheus.GaugeValue, float64(s.IdleConns()), "idle")
	ch <- prometheus.MustNewConstMetric(c.conns, prometheus.GaugeValue, float64(s.AcquiredConns()), "acquired")
	ch <- prometheus.MustNewConstMetric(c.conns, prometheus.GaugeValue, float64(s.ConstructingConns()), "constructing")
	ch <- prometheus.MustNewConstMetric(c.max, prometheus.GaugeValue, float64(s.MaxConns()))
	ch <- prometheus.MustNewConstMetric(c.acquires, prometheus.CounterValue, float64(s.AcquireCount()))
	ch <- prometheus.MustNewConstMetric(c.wait, prometheus.CounterValue, s.AcquireDuration().Seconds())
	ch <- prometheus.MustNewConstMetric(c.empty, prometheus.CounterValue, float64(s.EmptyAcquireCount()))
	ch <- prometheus.MustNewConstMetric(c.gave, prometheus.CounterValue, float64(s.CanceledAcquireCount()))
}

// projectCollector reports every public project's counts, read at most
// once a second however often it is scraped. /metrics is public: a hidden
// project's name and progress stay out of it as they stay out of the home
// page and /projects.json.
type projectCollector struct {
	store      *projects.Store
	volunteers *volunteers.Counter
	sites      *sites.Store
	cached     cachedMetrics
}

// sitesMaxAge is how old the sites' figures in /metrics may be: their
// summary reads every site row of a project, so it is read at most once
// in that time however often /metrics is scraped.
const sitesMaxAge = 10 * time.Second

// cachedMetrics holds a collector's metrics, read at most once a second
// however often /metrics is scraped: each read costs queries.
type cachedMetrics struct {
	mu      sync.Mutex
	read    time.Time
	metrics []prometheus.Metric
}

// send sends the metrics, reading them again with read when they are a
// second old; a failed read is reported as an invalid metric of desc.
func (c *cachedMetrics) send(ch chan<- prometheus.Metric, desc *prometheus.Desc, read func() ([]prometheus.Metric, error)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.read) >= time.Second {
		ms, err := read()
		if err != nil {
			ch <- prometheus.NewInvalidMetric(desc, err)
			return
		}
		c.metrics, c.read = ms, time.Now()
	}
	for _, m := range c.metrics {
		ch <- m
	}
}

var (
	projQueue      = prometheus.NewDesc("tracker_project_queue_items", "Items queued, by project and queue.", []string{"project", "queue"}, nil)
	projClaims     = prometheus.NewDesc("tracker_project_claims", "Items out with warriors.", []string{"project"}, nil)
	projDone       = prometheus.NewDesc("tracker_project_done_items_total", "Items completed.", []string{"project"}, nil)
	projBytes      = prometheus.NewDesc("tracker_project_done_bytes_total", "Bytes the completions reported.", []string{"project"}, nil)
	projReclaims   = prometheus.NewDesc("tracker_project_reclaims_total", "Claims handed out again after expiring.", []string{"project"}, nil)
	projRequests   = prometheus.NewDesc("tracker_project_item_requests_total", "Item requests, by whether they got items.", []string{"project", "served"}, nil)
	projNotHeld    = prometheus.NewDesc("tracker_project_done_not_held_total", "Items reported done by a downloader who neither held nor holds them; not completed.", []string{"project"}, nil)
	projAway       = prometheus.NewDesc("tracker_project_other_network_total", "Items reported done (action done) or released (action release) under their holder's nick from another network than the claim's (IPv4 /24, IPv6 /48): refused when the project sets claimer_network, taken when not.", []string{"project", "action"}, nil)
	projVolunteers = prometheus.NewDesc("tracker_project_volunteers", "Unique addresses that asked for work, each counted once in 30 days: new this month, and in the last 30 days.", []string{"project", "window"}, nil)
	volunteersAll  = prometheus.NewDesc("tracker_volunteers", "Unique addresses that asked for work on any project, each counted once in 30 days: new this month, and in the last 30 days.", []string{"window"}, nil)
	projRevisits   = prometheus.NewDesc("tracker_project_revisit_items", "Items of a recurring project waiting for their next visit; with the queued and claimed items, the items tracked.", []string{"project"}, nil)
	projFailed     = prometheus.NewDesc("tracker_project_items_failed_total", "Items sent to the error queue: handed out max_claims times, the last claim expired.", []string{"project"}, nil)
	projSites      = prometheus.NewDesc("tracker_project_sites", "Sites of a project whose items have sites, by state: with items out (active), with items queued and due now (due), with items queued waiting on their interval or limit (waiting), blocked.", []string{"project", "state"}, nil)
	projSitesWait  = prometheus.NewDesc("tracker_project_requests_sites_waited_total", "Item requests refused (429 sites-waiting) because every site with items queued waited on politeness.", []string{"project"}, nil)
)

func (c *projectCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{projQueue, projClaims, projDone, projBytes, projReclaims, projRequests, projNotHeld, projAway, projFailed, projRevisits, projSites, projSitesWait, projVolunteers, volunteersAll} {
		ch <- d
	}
}

func (c *projectCollector) Collect(ch chan<- prometheus.Metric) {
	c.cached.send(ch, projDone, c.collect)
}

func (c *projectCollector) collect() ([]prometheus.Metric, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ps, err := c.store.List(ctx)
	if err != nil {
		return nil, err
	}
	var ms []prometheus.Metric
	for _, p := range ps {
		if p.Config.Hidden {
			continue
		}
		s, err := c.store.Summary(ctx, p)
		if err != nil {
			return nil, err
		}
		for q, n := range s.Queues {
			ms = append(ms, prometheus.MustNewConstMetric(projQueue, prometheus.GaugeValue, float64(n), p.Slug, q))
		}
		ms = append(ms,
			prometheus.MustNewConstMetric(projClaims, prometheus.GaugeValue, float64(s.Claims), p.Slug),
			prometheus.MustNewConstMetric(projDone, prometheus.CounterValue, float64(s.Done), p.Slug),
			prometheus.MustNewConstMetric(projBytes, prometheus.CounterValue, float64(s.Bytes), p.Slug),
			prometheus.MustNewConstMetric(projReclaims, prometheus.CounterValue, float64(s.Reclaims), p.Slug),
			prometheus.MustNewConstMetric(projNotHeld, prometheus.CounterValue, float64(s.DoneNotHeld), p.Slug),
			prometheus.MustNewConstMetric(projAway, prometheus.CounterValue, float64(s.DoneOtherNetwork), p.Slug, "done"),
			prometheus.MustNewConstMetric(projAway, prometheus.CounterValue, float64(s.ReleaseOtherNetwork), p.Slug, "release"),
			prometheus.MustNewConstMetric(projFailed, prometheus.CounterValue, float64(s.Failed), p.Slug),
			prometheus.MustNewConstMetric(projRevisits, prometheus.GaugeValue, float64(s.Revisits), p.Slug),
		)
		if p.Config.Sited() {
			sum, err := c.sites.Summary(ctx, p.ID, sitesMaxAge)
			if err != nil {
				return nil, err
			}
			ms = append(ms,
				prometheus.MustNewConstMetric(projSites, prometheus.GaugeValue, float64(sum.Active), p.Slug, "active"),
				prometheus.MustNewConstMetric(projSites, prometheus.GaugeValue, float64(sum.Due), p.Slug, "due"),
				prometheus.MustNewConstMetric(projSites, prometheus.GaugeValue, float64(sum.Waiting), p.Slug, "waiting"),
				prometheus.MustNewConstMetric(projSites, prometheus.GaugeValue, float64(sum.Blocked), p.Slug, "blocked"),
				prometheus.MustNewConstMetric(projSitesWait, prometheus.CounterValue, float64(sum.Waited), p.Slug),
			)
		}
		v, err := c.volunteers.Counts(ctx, p.ID)
		if err != nil {
			return nil, err
		}
		ms = append(ms,
			prometheus.MustNewConstMetric(projVolunteers, prometheus.GaugeValue, float64(v.Month), p.Slug, "month"),
			prometheus.MustNewConstMetric(projVolunteers, prometheus.GaugeValue, float64(v.Last30), p.Slug, "30d"),
			prometheus.MustNewConstMetric(projRequests, prometheus.CounterValue, float64(s.RequestsServed), p.Slug, "true"),
			prometheus.MustNewConstMetric(projRequests, prometheus.CounterValue, float64(s.Requests-s.RequestsServed), p.Slug, "false"),
		)
	}
	v, err := c.volunteers.Counts(ctx, volunteers.Tracker)
	if err != nil {
		return nil, err
	}
	ms = append(ms,
		prometheus.MustNewConstMetric(volunteersAll, prometheus.GaugeValue, float64(v.Month), "month"),
		prometheus.MustNewConstMetric(volunteersAll, prometheus.GaugeValue, float64(v.Last30), "30d"))
	return ms, nil
}

// RegisterMetrics adds collectors to the handler's /metrics, such as the
// background jobs'.
func (h *Handler) RegisterMetrics(cs ...prometheus.Collector) error {
	for _, c := range cs {
		if err := h.metrics.registry.Register(c); err != nil {
			return err
		}
	}
	return nil
}
