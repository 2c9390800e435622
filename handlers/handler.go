// Package handlers is the tracker's HTTP face: one route table (routes.go)
// for the warrior protocol, the public pages and health checks, each a thin
// adapter over the domain packages.
package handlers

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/audit"
	"tracker/conns"
	"tracker/items"
	"tracker/projects"
	"tracker/sites"
	"tracker/stats"
	"tracker/users"
	"tracker/volunteers"
	"tracker/warriors"
)

// Handler holds what the routes need.
type Handler struct {
	log      *slog.Logger
	pool     *pgxpool.Pool
	projects *projects.Store
	live     *projects.Cache
	items    *items.Engine
	// sites are the frontier of projects whose items have sites.
	sites *sites.Store
	stats *stats.Hub
	// logs tells the projects' completions to the live log's clients.
	logs     *stats.LogHub
	polls    logPolls
	metrics  *metrics
	users    *users.Store
	audit    *audit.Log
	warriors *warriors.Store
	// volunteers counts the addresses that ask for work.
	volunteers *volunteers.Counter
	sessions   sessions
	csrf       *http.CrossOriginProtection
	// streamsEnd is closed when the server shuts down: the live streams,
	// which would otherwise hold the shutdown up, end.
	streamsEnd chan struct{}
	streams    streamSlots
	// trusted are the reverse proxies whose forwarding headers are believed.
	trusted []netip.Prefix
	// proxied counts the requests in flight of each client of a trusted
	// proxy (Listen).
	proxied *conns.InFlight
	// listeners are those Listen made.
	listeners listeners
	// backfeedStrikes counts wrong backfeed addresses by client.
	backfeedStrikes *strikes
	// publicURL starts the absolute URLs the tracker makes (Config.PublicURL).
	publicURL string
	// uploadIdle is how long an admin's items upload may go without a byte
	// arriving (Config.UploadIdle).
	uploadIdle time.Duration
	// bodies are the budgets of bytes the bodies being read and held
	// take, by kind of route (body_budget.go).
	bodies  bodyBudgets
	endOnce sync.Once
	// cacheTTL is how stale what the routes keep may be (New).
	cacheTTL time.Duration
	// reads is the public read routes' side of the database (readers.go).
	reads readSide
	// adm is the admin panel's (admin_reads.go).
	adm adminSide
	// apiThrottle is the admin API's rate per token, tokenStrikes its
	// count of tokens that are none by address (api_throttle.go).
	apiThrottle  *tokenThrottle
	tokenStrikes *strikes
	// downloads are what /downloads/ serves (Config.Downloads).
	downloads downloads
}

// Config is what the handlers are built from, wired in one place (the
// serve command): the pools of each side, their limits and the settings.
// A zero field takes its default.
type Config struct {
	Log *slog.Logger
	// Pool serves the warrior routes, and each side given no pool of
	// its own.
	Pool *pgxpool.Pool
	// CacheTTL is how stale what the routes keep may be: the warrior
	// routes see a project's configuration, blocks and queue sizes as
	// they were at most that long ago, the read routes projects, item
	// status, the project list and the settings so too (0: read each time).
	CacheTTL time.Duration
	// ReaderPool is the public read routes' own pool, Readers their
	// limits (Slots no more than the pool's connections).
	ReaderPool *pgxpool.Pool
	Readers    ReaderLimits
	// AdminPool is the admin panel's reads' own pool of Admin.Conns
	// connections, Admin its limits.
	AdminPool *pgxpool.Pool
	Admin     AdminLimits
	// Streams bound the live streams.
	Streams StreamLimits
	// TrustedProxies are the reverse proxies in front of the tracker.
	// Only from them are X-Forwarded-For, X-Real-IP and
	// X-Forwarded-Proto believed; from anyone else those headers are
	// dropped, so a client cannot pass for another address or for TLS.
	TrustedProxies []netip.Prefix
	// PublicURL is the address clients reach the tracker at, as
	// ParsePublicURL gives it: every absolute URL the tracker makes (the
	// leaderboards in /projects.json, the backfeed URL in the admin
	// panel) starts with it. Empty, they are made from each request's
	// Host header.
	PublicURL string
	// Downloads is the directory /downloads/ serves ("": the network
	// check file only).
	Downloads string
	// UploadIdle is how long an admin's items upload may go without a
	// byte arriving (DefaultUploadIdle); while bytes flow it runs past the
	// server's read timeout, as long as it takes, and its answer gets as
	// long again to be written.
	UploadIdle time.Duration
	// APIRate and APIBurst are each API token's rate (APIRate and
	// APIBurst, the constants, by default).
	APIRate  float64
	APIBurst int
}

// New builds the handlers of cfg.
func New(cfg Config) *Handler {
	log, pool := cfg.Log, cfg.Pool
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	readerPool, adminPool := cmp.Or(cfg.ReaderPool, pool), cmp.Or(cfg.AdminPool, pool)
	if cfg.Readers == (ReaderLimits{}) {
		cfg.Readers = DefaultReaderLimits
	}
	if cfg.Admin == (AdminLimits{}) {
		cfg.Admin = DefaultAdminLimits
	}
	if cfg.Streams == (StreamLimits{}) {
		cfg.Streams = DefaultStreamLimits
	}
	store := projects.NewStore(pool)
	counter := volunteers.New(pool)
	frontier := sites.NewStore(pool)
	engine := items.NewEngine(pool, log)
	h := &Handler{
		log:        log,
		pool:       pool,
		projects:   store,
		live:       projects.NewCache(store, cfg.CacheTTL),
		items:      engine,
		sites:      frontier,
		stats:      stats.NewHub(readerPool, store, log),
		logs:       stats.NewLogHub(pool, log),
		polls:      logPolls{sessions: map[string]*logPoll{}},
		metrics:    newMetrics(pool, store, counter, frontier),
		users:      users.NewStore(pool),
		audit:      audit.New(pool),
		warriors:   warriors.NewStore(pool),
		volunteers: counter,
		sessions:   newSessions(pool),
		csrf:       http.NewCrossOriginProtection(),

		streamsEnd: make(chan struct{}),
		streams:    streamSlots{limits: cfg.Streams},
		trusted:    cfg.TrustedProxies,
		publicURL:  cfg.PublicURL,

		proxied:         conns.NewInFlight(DefaultConnLimits.PerAddress),
		backfeedStrikes: newStrikes(backfeedMaxWrong, backfeedWrongWindow),
		uploadIdle:      cmp.Or(cfg.UploadIdle, DefaultUploadIdle),
		bodies:          newBodyBudgets(bodyWait),
		cacheTTL:        cfg.CacheTTL,
		reads:           newReadSide(readerPool, engine, cfg.CacheTTL, cfg.Readers),
		adm:             newAdminSide(adminPool, engine, cfg.CacheTTL, cfg.Admin),
		apiThrottle:     newTokenThrottle(cmp.Or(cfg.APIRate, APIRate), cmp.Or(cfg.APIBurst, APIBurst)),
		tokenStrikes:    newStrikes(badTokenLimit, badTokenWindow),
		downloads:       downloads{started: time.Now().UTC().Truncate(time.Second), dir: cfg.Downloads},
	}
	if cfg.ReaderPool != nil {
		h.metrics.registry.MustRegister(newPoolCollector(cfg.ReaderPool, "tracker_db_reader_pool", " (the public read routes' pool)"))
	}
	if cfg.AdminPool != nil {
		h.metrics.registry.MustRegister(newPoolCollector(cfg.AdminPool, "tracker_db_admin_pool", " (the admin panel's reads' pool)"))
	}
	h.metrics.registry.MustRegister(&warriorCollector{h: h}, connCollector{&h.listeners})
	// A state change from another site is refused as every refusal is:
	// with its reason.
	h.csrf.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.serveError(w, r, errorf(http.StatusForbidden, "cross-origin", "a change sent from another site is refused: send it from the tracker's own pages"), true)
	}))
	// And a session that cannot be read or saved as every failure is: the
	// database away is a 503 with its reason, and logged as a warning.
	h.sessions.onError(func(w http.ResponseWriter, r *http.Request, err error) { h.serveError(w, r, err, true) })
	return h
}

// EndStreams ends the live streams; the server calls it when it starts
// shutting down (http.Server.RegisterOnShutdown).
func (h *Handler) EndStreams() { h.endOnce.Do(func() { close(h.streamsEnd) }) }

// Close ends the streams and stops the live boards' and logs' refreshing.
func (h *Handler) Close() {
	h.EndStreams()
	h.stats.Close()
	h.logs.Close()
}

// api adapts a handler of the machine-facing routes: errors become a plain
// text (or JSON) answer with their status and reason.
func (h *Handler) api(fn func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			h.serveError(w, r, err, false)
		}
	})
}

// page adapts a handler of the HTML pages (the admin panel's too): errors
// become an error page.
func (h *Handler) page(fn func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			h.serveError(w, r, err, true)
		}
	})
}

// render writes a component only once it has rendered whole, so a failure
// half-way gives an error page instead of a 200 with half a page.
func render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) error {
	body, err := rendered(r.Context(), c)
	if err != nil {
		return err
	}
	return writeHTML(w, status, body)
}

// rendered is a component rendered whole.
func rendered(ctx context.Context, c templ.Component) ([]byte, error) {
	var buf bytes.Buffer
	if err := c.Render(ctx, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeHTML answers with a rendered page.
func writeHTML(w http.ResponseWriter, status int, body []byte) error {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, err := w.Write(body)
	return err
}

// sentError is a failure after the answer's status went out: it can only
// be logged.
type sentError struct{ err error }

func (e *sentError) Error() string { return "after the answer began: " + e.err.Error() }
func (e *sentError) Unwrap() error { return e.err }

func writeJSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, err = w.Write(b)
	return err
}

func writeText(w http.ResponseWriter, status int, s string) error {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, err := io.WriteString(w, s)
	return err
}

// decodeJSON reads a JSON object body of at most limit bytes into v.
func decodeJSON(w http.ResponseWriter, r *http.Request, limit int64, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, limit))
	if err := dec.Decode(v); err != nil {
		// Too big, or cut short: the body, not its JSON.
		if e := bodyRefusal(err); e != nil {
			return e
		}
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return errorf(http.StatusBadRequest, "malformed-json", "field %q: expected %s, got %s", typeErr.Field, typeErr.Type, typeErr.Value)
		}
		return errorf(http.StatusBadRequest, "malformed-json", "malformed JSON body: %v", err)
	}
	if dec.More() {
		return errorf(http.StatusBadRequest, "malformed-json", "malformed JSON body: data after the object")
	}
	return nil
}

// clientIP is the address the request came from.
func clientIP(r *http.Request) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap()
}
