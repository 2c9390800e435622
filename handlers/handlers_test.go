package handlers_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db/dbtest"
	"tracker/handlers"
	"tracker/items"
	"tracker/projects"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

type fixture struct {
	srv     *httptest.Server
	pool    *pgxpool.Pool
	store   *projects.Store
	project projects.Project
	// from is the client address a proxy in front names (behindProxy).
	from string
}

// setup starts the tracker's routes on a real HTTP server over a fresh
// database holding project "test" with the given items in todo.
func setup(t *testing.T, names ...string) fixture {
	t.Helper()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	p := dbtest.Project(t, pool, "test", "Test project")
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if len(names) > 0 {
		if _, err := items.NewEngine(pool, log).Add(context.Background(), p, "todo", strings.NewReader(strings.Join(names, "\n"))); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(newHandler(log, pool).Routes())
	t.Cleanup(srv.Close)
	return fixture{srv: srv, pool: pool, store: store, project: p}
}

// newHandler is the tracker's handler on pool as the tests use it, with
// what configure sets: the read routes and the admin pages without their
// rates (a read gives its slot back as soon as its answer is sent), which
// their own tests set.
func newHandler(log *slog.Logger, pool *pgxpool.Pool, configure ...func(*handlers.Config)) *handlers.Handler {
	cfg := handlers.Config{Log: log, Pool: pool, Readers: handlers.DefaultReaderLimits, Admin: handlers.DefaultAdminLimits}
	cfg.Readers.Rate, cfg.Admin.Rate = 0, 0
	for _, c := range configure {
		c(&cfg)
	}
	return handlers.New(cfg)
}

type answer struct {
	status int
	reason string
	body   string
	header http.Header
}

// second starts another tracker server on the same database, as a second
// process would run.
func (f fixture) second(t *testing.T) fixture {
	t.Helper()
	return f.serve(t, io.Discard, nil)
}

// serve starts another tracker server on f's database that logs to out
// (the server's own complaints too), its handlers built with config, after
// configure (when not nil) has set up the handlers and the server.
func (f fixture) serve(t *testing.T, out io.Writer, configure func(*handlers.Handler, *http.Server), config ...func(*handlers.Config)) fixture {
	t.Helper()
	h := newHandler(slog.New(slog.NewTextHandler(out, nil)), f.pool, config...)
	srv := httptest.NewUnstartedServer(nil)
	srv.Config.ErrorLog = log.New(out, "", 0)
	if configure != nil {
		configure(h, srv.Config)
	}
	srv.Config.Handler = h.Routes()
	srv.Start()
	t.Cleanup(h.Close)
	t.Cleanup(srv.Close) // first: the server drains before its handlers stop
	f.srv = srv
	return f
}

// behindProxy starts another tracker server on the same database that
// takes its loopback peers for a trusted proxy: requests then come from
// the address as names.
func (f fixture) behindProxy(t *testing.T) fixture {
	t.Helper()
	h := newHandler(slog.New(slog.NewTextHandler(io.Discard, nil)), f.pool, trustLoopback)
	srv := httptest.NewServer(h.Routes())
	t.Cleanup(srv.Close)
	f.srv = srv
	return f
}

// trustLoopback takes the loopback peers for a trusted proxy.
func trustLoopback(c *handlers.Config) {
	c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
}

// as is f sending its requests from client address addr, through the
// proxy of behindProxy.
func (f fixture) as(addr string) fixture {
	f.from = addr
	return f
}

func (f fixture) do(t *testing.T, method, path, body string) answer {
	t.Helper()
	return f.doBody(t, method, path, "application/json", body)
}

func (f fixture) doBody(t *testing.T, method, path, contentType, body string) answer {
	t.Helper()
	a, err := f.send(method, path, contentType, body)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// send makes one request and returns the answer. It reports failures as
// errors, not through a test: goroutines of a test use it.
func (f fixture) send(method, path, contentType, body string) (answer, error) {
	req, err := http.NewRequest(method, f.srv.URL+path, strings.NewReader(body))
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Content-Type", contentType)
	if f.from != "" {
		req.Header.Set("X-Forwarded-For", f.from)
	}
	// What seesaw's Tornado client sends.
	req.Header.Set("Connection", "close")
	req.Header.Set("Accept-Encoding", "gzip")
	// The warrior's client does not follow redirects on POST: neither do we.
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, err
	}
	// As the client does, having asked for it (its header says it came
	// so).
	if resp.Header.Get("Content-Encoding") == "gzip" && len(b) > 0 {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return answer{}, err
		}
		if b, err = io.ReadAll(zr); err != nil {
			return answer{}, err
		}
	}
	return answer{status: resp.StatusCode, reason: resp.Header.Get("X-Tracker-Reason"), body: string(b), header: resp.Header}, nil
}

// stored is project slug as stored now.
func (f fixture) stored(t *testing.T, slug string) projects.Project {
	t.Helper()
	p, err := f.store.Get(context.Background(), slug)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (f fixture) summary(t *testing.T) projects.Summary {
	t.Helper()
	s, err := f.store.Summary(context.Background(), f.project)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
