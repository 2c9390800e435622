// Package handlers is the tracker's HTTP face: one route table (routes.go)
// for the warrior protocol, the public pages and health checks, each a thin
// adapter over the domain packages.
package handlers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/a-h/templ"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/items"
	"tracker/projects"
	"tracker/stats"
	"tracker/users"
	"tracker/views"
)

// Handler holds what the routes need.
type Handler struct {
	log      *slog.Logger
	pool     *pgxpool.Pool
	projects *projects.Store
	live     *projects.Cache
	items    *items.Engine
	stats    *stats.Hub
	metrics  *metrics
	users    *users.Store
	sessions sessions
	csrf     *http.CrossOriginProtection
	// streamsEnd is closed when the server shuts down: the live streams,
	// which would otherwise hold the shutdown up, end.
	streamsEnd chan struct{}
	endOnce    sync.Once
}

// New builds the handlers. The warrior routes see a project's configuration,
// blocks and queue sizes as they were at most cacheTTL ago.
func New(log *slog.Logger, pool *pgxpool.Pool, cacheTTL time.Duration) *Handler {
	store := projects.NewStore(pool)
	return &Handler{
		log:      log,
		pool:     pool,
		projects: store,
		live:     projects.NewCache(store, cacheTTL),
		items:    items.NewEngine(pool, log),
		stats:    stats.NewHub(pool, store, log),
		metrics:  newMetrics(pool, store),
		users:    users.NewStore(pool),
		sessions: newSessions(pool),
		csrf:     http.NewCrossOriginProtection(),

		streamsEnd: make(chan struct{}),
	}
}

// EndStreams ends the live streams; the server calls it when it starts
// shutting down (http.Server.RegisterOnShutdown).
func (h *Handler) EndStreams() { h.endOnce.Do(func() { close(h.streamsEnd) }) }

// Close ends the streams and stops the live boards' refreshing.
func (h *Handler) Close() {
	h.EndStreams()
	h.stats.Close()
}

// Error is an answer other than success: a status, a short machine-readable
// reason sent as X-Tracker-Reason, and a message for people (may be empty:
// the warrior protocol wants some answers with an empty body).
type Error struct {
	Status int
	Reason string
	Msg    string
	// RetryAfter, in seconds, is sent as Retry-After when positive.
	RetryAfter int
	// JSON answers {"status_code": Status, "error": Msg} instead of text.
	JSON bool
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Reason, e.Msg) }

func errorf(status int, reason, format string, args ...any) *Error {
	return &Error{Status: status, Reason: reason, Msg: fmt.Sprintf(format, args...)}
}

// api adapts a handler of the machine-facing routes: errors become a plain
// text answer with their status and reason.
func (h *Handler) api(fn func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			e := h.classify(r, err)
			writeError(w, e)
		}
	})
}

// page adapts a handler of the HTML pages: errors become an error page.
func (h *Handler) page(fn func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			var sent *sentError
			if errors.As(err, &sent) {
				if r.Context().Err() == nil {
					h.log.Warn("page cut short", "path", r.URL.Path, "err", err)
				}
				return
			}
			e := h.classify(r, err)
			w.Header().Set("X-Tracker-Reason", e.Reason)
			if e.RetryAfter > 0 {
				w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
			}
			msg := e.Msg
			if msg == "" {
				msg = http.StatusText(e.Status)
			}
			if rerr := render(w, r, e.Status, views.Layout(http.StatusText(e.Status), views.ErrorPage(e.Status, msg))); rerr != nil {
				writeError(w, e)
			}
		}
	})
}

// classify turns any error into an *Error, logging the ones that are ours.
func (h *Handler) classify(r *http.Request, err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var refusal *items.Refusal
	if errors.As(err, &refusal) {
		return refusalError(refusal)
	}
	if unavailable(err) {
		h.log.Warn("database unavailable", "method", r.Method, "path", r.URL.Path, "err", err)
		return &Error{Status: http.StatusServiceUnavailable, Reason: "database-unavailable",
			Msg: "the database is not answering; try again shortly", RetryAfter: 10}
	}
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		// The client went away; nobody reads this answer.
		return &Error{Status: 499, Reason: "client-gone"}
	}
	h.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	return &Error{Status: http.StatusInternalServerError, Reason: "internal-error", Msg: "internal error"}
}

// unavailable tells errors that mean the database is away (down, restarting,
// unreachable) from errors in what we asked of it.
func unavailable(err error) bool {
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) || pgconn.Timeout(err) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// 08: connection exception; 57: operator intervention (shutdown,
		// cannot connect now).
		return pgErr.Code[:2] == "08" || pgErr.Code[:2] == "57"
	}
	// The connection went down under the statement (the server stopped or
	// crashed): the client may try again, and a done retried is harmless.
	var netErr net.Error
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) ||
		errors.As(err, &netErr) {
		return true
	}
	return pgconn.SafeToRetry(err)
}

func writeError(w http.ResponseWriter, e *Error) {
	h := w.Header()
	h.Set("X-Tracker-Reason", e.Reason)
	if e.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	if e.JSON {
		b, _ := json.Marshal(map[string]any{"status_code": e.Status, "error": e.Msg})
		h.Set("Content-Type", "application/json")
		w.WriteHeader(e.Status)
		w.Write(b)
		return
	}
	if e.Msg == "" {
		w.WriteHeader(e.Status)
		return
	}
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(e.Status)
	io.WriteString(w, e.Msg+"\n")
}

// render writes a component only once it has rendered whole, so a failure
// half-way gives an error page instead of a 200 with half a page.
func render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) error {
	var buf bytes.Buffer
	if err := c.Render(r.Context(), &buf); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, err := buf.WriteTo(w)
	return err
}

// stream writes a component as it renders: for pages too big to hold in
// memory (a board of every downloader). A failure half-way cuts the page
// short; the error is logged, as the status is already sent.
func stream(w http.ResponseWriter, r *http.Request, status int, c templ.Component) error {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	bw := bufio.NewWriterSize(w, 32<<10)
	if err := c.Render(r.Context(), bw); err != nil {
		return &sentError{err}
	}
	if err := bw.Flush(); err != nil {
		return &sentError{err}
	}
	return nil
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
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return errorf(http.StatusRequestEntityTooLarge, "body-too-large", "request body larger than %d bytes", limit)
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
