package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"tracker/conns"
	"tracker/db"
	"tracker/handlers"
	"tracker/jobs"
	"tracker/projects"
)

const (
	shutdownTimeout = 30 * time.Second
	// maxReaderConns bounds --reader-conns, maxAdminConns --admin-conns.
	maxReaderConns = 64
	maxAdminConns  = 16
	// webStatementTimeout bounds one statement of a web request: a batch
	// of an admin's bulk change over millions of items takes seconds.
	webStatementTimeout = 60 * time.Second
	// readerStatementTimeout bounds one statement of the public read
	// routes: an item's status takes a millisecond, rereading the rankings
	// of 100,000 downloaders under a second.
	readerStatementTimeout = 5 * time.Second
	// adminStatementTimeout bounds one statement of the admin panel's
	// reads: a page of the queue browser searches 10,000 names, a second
	// or so when they are long; a count of what a bulk change would touch
	// that takes longer runs from the shell (tracker queue move).
	adminStatementTimeout = 5 * time.Second
	// How stale the warrior routes' view of a project (configuration,
	// blocks, which queues hold items) may be: changes made by the CLI, the
	// panel or another process take effect within it.
	projectCacheTTL = time.Second
)

type serveOptions struct {
	Addr    string                // --addr, $TRACKER_ADDR
	Conns   conns.Limits          // --max-conns, --max-conns-per-address, --conn-reserve
	Streams handlers.StreamLimits // --max-streams, --max-streams-per-address, --stream-lifetime
	// TrustedProxies: --trusted-proxies, $TRACKER_TRUSTED_PROXIES.
	TrustedProxies string
	PublicURL      string // --public-url, $TRACKER_PUBLIC_URL
	// Readers: --reader-conns, --reader-rate, --reader-wait.
	Readers handlers.ReaderLimits
	// TLS: --tls-addr, --tls-cert, --tls-key, --acme-domain, --acme-email,
	// --acme-directory.
	TLS tlsOptions
	// Admin: --admin-conns.
	Admin handlers.AdminLimits
	// DebugAddr: --debug-addr, $TRACKER_DEBUG_ADDR (debug.go).
	DebugAddr string
}

func runServe(ctx context.Context, a *app, _ []string, o serveOptions) error {
	if o.Conns.Total < 1 || o.Conns.PerAddress < 1 || o.Conns.Reserve < 0 || o.Conns.Reserve >= o.Conns.Total {
		return &usageError{"--max-conns and --max-conns-per-address take 1 or more, --conn-reserve 0 to --max-conns less 1"}
	}
	if o.Streams.Total < 1 || o.Streams.PerAddress < 1 || o.Streams.Lifetime < time.Second {
		return &usageError{"--max-streams and --max-streams-per-address take 1 or more, --stream-lifetime 1s or more"}
	}
	if o.Readers.Slots < 1 || o.Readers.Slots > maxReaderConns || o.Readers.Rate < 0 || o.Readers.Wait < 0 {
		return &usageError{fmt.Sprintf("--reader-conns takes 1 to %d, --reader-rate 0 or more, --reader-wait 0s or more", maxReaderConns)}
	}
	if o.Admin.Conns < 1 || o.Admin.Conns > maxAdminConns {
		return &usageError{fmt.Sprintf("--admin-conns takes 1 to %d", maxAdminConns)}
	}
	trusted, err := handlers.ParseTrustedProxies(o.TrustedProxies)
	if err != nil {
		return &usageError{fmt.Sprintf("--trusted-proxies %q: addresses or networks such as 127.0.0.1,10.0.0.0/8: %v", o.TrustedProxies, err)}
	}
	secure, err := o.TLS.serving(a.cfg.DataDir)
	if err != nil {
		return err
	}
	publicURL, err := handlers.ParsePublicURL(o.PublicURL)
	if err != nil {
		return &usageError{fmt.Sprintf("--public-url: %v", err)}
	}
	d, err := a.openDatabase(ctx)
	if err != nil {
		return err
	}
	defer d.close(a) // last: after the server and the jobs have stopped

	// Today's completion partitions exist before the first request. A
	// project whose partitions cannot be made keeps no other from being
	// served: its completions land in its default partition until
	// housekeeping makes them.
	if err := jobs.EnsurePartitions(ctx, projects.NewStore(d.pool), time.Now()); err != nil {
		var failed *jobs.ProjectErrors
		if !errors.As(err, &failed) || ctx.Err() != nil {
			return err
		}
		a.log.Warn("completion partitions", "err", err)
	}
	runner := a.jobRunner(d)
	// Jobs end when Stop says so, after the server, not at the signal.
	if err := runner.Start(context.WithoutCancel(ctx)); err != nil {
		return err
	}
	defer runner.Stop() // after the server has drained, before the pool closes

	// Web requests have a pool of their own, whose statements PostgreSQL
	// cancels past webStatementTimeout; the jobs keep the other.
	web, err := db.Open(ctx, d.dsn, db.StatementTimeout(webStatementTimeout))
	if err != nil {
		return err
	}
	defer web.Close() // after the server has drained
	// The public read routes have a pool of their own, a few connections
	// they take turns on: readers never hold one of the warriors'.
	readers, err := db.Open(ctx, d.dsn, db.StatementTimeout(readerStatementTimeout),
		db.MaxConns(int32(o.Readers.Slots)), db.ApplicationName("tracker-readers"))
	if err != nil {
		return err
	}
	defer readers.Close() // after the server has drained
	// So has the admin panel's reading: its searches never hold one of
	// the warriors' connections either.
	admin, err := db.Open(ctx, d.dsn, db.StatementTimeout(adminStatementTimeout),
		db.MaxConns(int32(o.Admin.Conns)), db.ApplicationName("tracker-admin"))
	if err != nil {
		return err
	}
	defer admin.Close() // after the server has drained
	h := handlers.New(handlers.Config{
		Log: a.log, Pool: web, CacheTTL: projectCacheTTL,
		ReaderPool: readers, Readers: o.Readers,
		AdminPool: admin, Admin: o.Admin,
		Streams:        o.Streams,
		TrustedProxies: trusted,
		PublicURL:      publicURL,
		// As warrior HQ: what an operator puts in the data directory's
		// downloads/ is served at /downloads/.
		Downloads: filepath.Join(a.cfg.DataDir, "downloads"),
	})
	defer h.Close() // after the server has drained
	if err := h.RegisterMetrics(jobs.NewCollector(d.pool)); err != nil {
		return err
	}
	inner, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return err
	}
	// No client holds the connections every other needs: each address
	// has its share, idle keep-alives go first when the server nears its
	// total, and the last connections serve the warriors only.
	ln := h.Listen(inner, o.Conns)
	srvs := []*http.Server{h.Server(ln)}
	lns := []net.Listener{ln}
	a.log.Info("tracker listening", "url", fmt.Sprintf("http://%s/", ln.Addr()))
	if secure != nil {
		// Beside TLS, plain HTTP serves what warriors and grab scripts
		// call, which take no redirect, and sends the rest to HTTPS.
		tlsInner, err := net.Listen("tcp", o.TLS.Addr)
		if err != nil {
			return err
		}
		_, port, _ := net.SplitHostPort(tlsInner.Addr().String())
		srvs[0].Handler = secure.plain(h.BesideTLS(srvs[0].Handler, port))
		tln := h.ListenTLS(tlsInner, o.Conns, secure.config)
		tsrv := h.Server(tln)
		tsrv.TLSConfig = secure.config // HTTP/2 is served when it offers h2
		srvs, lns = append(srvs, tsrv), append(lns, tln)
		a.log.Info("tracker listening", "url", fmt.Sprintf("https://%s/", tln.Addr()))
		if secure.reload != nil {
			stop := reloadOnHangup(a.log, secure.reload)
			defer stop()
		}
	}

	if o.DebugAddr != "" {
		dln, err := net.Listen("tcp", o.DebugAddr)
		if err != nil {
			return err
		}
		// Shut down with the others; a profile being taken is cut short.
		srvs = append(srvs, &http.Server{Handler: debugMux(), ReadHeaderTimeout: 10 * time.Second})
		lns = append(lns, dln)
		a.log.Info("profiles served", "url", fmt.Sprintf("http://%s/debug/pprof/", dln.Addr()))
	}

	serveErr := make(chan error, len(srvs))
	for i, srv := range srvs {
		go func() { serveErr <- srv.Serve(lns[i]) }()
	}

	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	a.log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	for _, srv := range srvs {
		if err := srv.Shutdown(shutdownCtx); err != nil {
			a.log.Warn("server shutdown", "err", err)
		}
	}
	for range srvs {
		if err := <-serveErr; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	return nil
}

// reloadOnHangup calls reload at each SIGHUP, logging what became of it,
// until stop.
func reloadOnHangup(log *slog.Logger, reload func() error) (stop func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-hup:
				if err := reload(); err != nil {
					log.Error("TLS certificate not reloaded: the one loaded before is kept", "err", err)
					continue
				}
				log.Info("TLS certificate reloaded")
			}
		}
	}()
	return func() { signal.Stop(hup); close(done) }
}
