package handlers

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"tracker/items"
	"tracker/refusal"
	"tracker/views"
)

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
	// Fields are the refusals of a change by field, which the admin API
	// answers beside the message.
	Fields map[string]string
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Reason, e.Msg) }

func errorf(status int, reason, format string, args ...any) *Error {
	return &Error{Status: status, Reason: reason, Msg: fmt.Sprintf(format, args...)}
}

// serveError answers a handler's error: an error page for the HTML routes,
// a plain or JSON answer for the others. Every route's errors go through
// here, so each kind of error gets one status and reason everywhere.
func (h *Handler) serveError(w http.ResponseWriter, r *http.Request, err error, html bool) {
	var sent *sentError
	if errors.As(err, &sent) {
		// The answer began: all that is left is to say so in the log.
		if r.Context().Err() == nil {
			h.log.Warn("answer cut short", "path", logPath(r), "err", err)
		}
		return
	}
	rec := recorderOf(r)
	if rec != nil && rec.wroteHeader {
		// The answer began before the handler failed (writing its body
		// to a client that left): a second head cannot follow it.
		return
	}
	e := h.classify(r, err)
	if e.Reason == "incomplete-body" {
		// A body that stopped coming failed on the read deadline, which
		// passes with the write deadline: the refusal needs time of its
		// own to be written.
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(refusalGrace))
	}
	if e.Status == statusClientGone {
		// Nobody reads an answer now, and 499 is no status to write: the
		// request is counted as the client's, and the connection closed
		// without an answer (a client that only half-closed its side
		// sees the connection end, never a made-up status).
		if rec != nil {
			rec.gone = true
		}
		panic(http.ErrAbortHandler)
	}
	if isAPIPath(r.URL.Path) {
		writeAPIError(w, e)
		return
	}
	if html && !e.JSON {
		msg := cmp.Or(e.Msg, http.StatusText(e.Status))
		admin := r.URL.Path == "/admin" || strings.HasPrefix(r.URL.Path, "/admin/")
		page := views.Layout(http.StatusText(e.Status), views.ErrorPage(e.Status, msg, admin))
		setErrorHeaders(w, e)
		if render(w, r, e.Status, page) == nil {
			return
		}
	}
	writeError(w, e)
}

// classify turns any error into an *Error, logging the ones that are ours.
func (h *Handler) classify(r *http.Request, err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if noItem, ok := errors.AsType[*items.Refusal](err); ok {
		return refusalError(noItem)
	}
	if ref, ok := refusal.Of(err); ok {
		return refusalAnswer(ref)
	}
	// The client's own doing, whatever the error looks like: a body that
	// ended early or stalled, or a client that went away (its request's
	// context ends, and the statements made for it fail as the database's
	// would). Neither is an outage of ours.
	if e := bodyRefusal(err); e != nil {
		return e
	}
	if r.Context().Err() != nil {
		return &Error{Status: statusClientGone, Reason: "client-gone"}
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "57014" {
		// The web pool's statement timeout (or an operator) cancelled it.
		h.log.Warn("statement cancelled", "method", r.Method, "path", logPath(r), "err", err)
		return &Error{Status: http.StatusServiceUnavailable, Reason: "too-slow",
			Msg: "the database took too long on this request; try again, or ask for less", RetryAfter: 10}
	}
	if waited(err) {
		h.log.Warn("no database connection came free", "method", r.Method, "path", logPath(r), "err", err)
		return errConnectionsBusy
	}
	if unavailable(err) {
		h.log.Warn("database unavailable", "method", r.Method, "path", logPath(r), "err", err)
		return &Error{Status: http.StatusServiceUnavailable, Reason: "database-unavailable",
			Msg: "the database is not answering; try again shortly", RetryAfter: 10}
	}
	h.log.Error("request failed", "method", r.Method, "path", logPath(r), "err", err)
	return &Error{Status: http.StatusInternalServerError, Reason: "internal-error", Msg: "internal error"}
}

// kindStatus is the one answer of each kind of refusal: its status, and
// the reason it is sent with when the refusal names none.
var kindStatus = map[refusal.Kind]struct {
	status int
	reason string
}{
	refusal.Invalid:   {http.StatusBadRequest, "invalid-request"},
	refusal.NotFound:  {http.StatusNotFound, "not-found"},
	refusal.Conflict:  {http.StatusConflict, "conflict"},
	refusal.Throttled: {http.StatusTooManyRequests, "throttled"},
}

// refusalAnswer is the answer to a refusal of any package. A kind the
// table does not know is a mistake of ours, answered as a request we
// cannot take rather than as a failure of the database.
func refusalAnswer(ref *refusal.Error) *Error {
	a, ok := kindStatus[ref.Kind]
	if !ok {
		a.status, a.reason = http.StatusBadRequest, "invalid-request"
	}
	e := errorf(a.status, cmp.Or(ref.Reason, a.reason), "%v", ref)
	if ref.RetryAfter > 0 {
		e.RetryAfter = max(1, int((ref.RetryAfter+time.Second-1)/time.Second))
	}
	return e
}

// bodyError is a failure reading a request's body (see limitBodies): the
// client's, however much it looks like a connection of ours failing.
type bodyError struct{ err error }

func (e *bodyError) Error() string { return "reading the request body: " + e.err.Error() }
func (e *bodyError) Unwrap() error { return e.err }

// bodyRefusal is the answer to err when it is a failure reading the
// request's body, else nil: 413 past the route's limit, 400 when the body
// ended before its announced length or stopped coming.
func bodyRefusal(err error) *Error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return errorf(http.StatusRequestEntityTooLarge, "body-too-large", "request body larger than %d bytes", tooBig.Limit)
	}
	var body *bodyError
	if errors.As(err, &body) {
		return errorf(http.StatusBadRequest, "incomplete-body", "the request body could not be read to its end: %v", body.err)
	}
	return nil
}

// logPath is r's path as logs may show it: a backfeed address's key is a
// secret, and is left out.
func logPath(r *http.Request) string {
	return redactPath(r.URL.Path)
}

// redactPath hides the key of a backfeed address
// (/backfeed/legacy/{project}-{key}): what follows the last '-'.
func redactPath(path string) string {
	const prefix = "/backfeed/legacy/"
	if !strings.HasPrefix(path, prefix) {
		return path
	}
	target := path[len(prefix):]
	if i := strings.LastIndexByte(target, '-'); i >= 0 {
		return prefix + target[:i+1] + "REDACTED"
	}
	return prefix + "REDACTED"
}

// errConnectionsBusy answers a request that waited for a connection to the
// database until its time ran out: the database may be well, the
// tracker's connections to it were all in use.
var errConnectionsBusy = &Error{Status: http.StatusServiceUnavailable, Reason: "connections-busy",
	Msg: "every connection to the database is in use; try again shortly", RetryAfter: 10}

// waited says err is a deadline that passed while waiting for one of a
// pool's connections, before anything was asked of the database: pgxpool
// reports the context's own error then. A statement under way reports its
// deadline as pgconn's timeout, a connection that could not be made as a
// ConnectError (its own connect timeout, 5 s, ends a wait for a database
// that is away before a longer deadline does), and the database's refusals
// are PgErrors.
func waited(err error) bool {
	var connectErr *pgconn.ConnectError
	var pgErr *pgconn.PgError
	return errors.Is(err, context.DeadlineExceeded) && !pgconn.Timeout(err) &&
		!errors.As(err, &connectErr) && !errors.As(err, &pgErr)
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
		// cannot connect now). A Citus coordinator reports a connection
		// to a worker lost in the middle of a transaction as an internal
		// error (XX000).
		return pgErr.Code[:2] == "08" || pgErr.Code[:2] == "57" ||
			pgErr.Code == "XX000" && (strings.HasPrefix(pgErr.Message, "failure on connection marked as essential") ||
				strings.HasPrefix(pgErr.Message, "connection to the remote node"))
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

func setErrorHeaders(w http.ResponseWriter, e *Error) {
	w.Header().Set("X-Tracker-Reason", e.Reason)
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
}

// apiError is a refusal as the admin API answers it (openapi.yaml, Error).
type apiError struct {
	Status int               `json:"status"`
	Reason string            `json:"reason"`
	Error  string            `json:"error"`
	Fields map[string]string `json:"fields,omitempty"`
}

// writeAPIError writes e as the admin API's JSON refusal.
func writeAPIError(w http.ResponseWriter, e *Error) {
	setErrorHeaders(w, e)
	b, _ := json.Marshal(apiError{Status: e.Status, Reason: e.Reason, Error: cmp.Or(e.Msg, http.StatusText(e.Status)), Fields: e.Fields})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	w.Write(b)
}

// writeErrorFor writes e as r's route answers refusals: JSON on the
// admin API, else as writeError does.
func writeErrorFor(w http.ResponseWriter, r *http.Request, e *Error) {
	if isAPIPath(r.URL.Path) {
		writeAPIError(w, e)
		return
	}
	writeError(w, e)
}

// writeError writes e as a plain text or JSON answer.
func writeError(w http.ResponseWriter, e *Error) {
	setErrorHeaders(w, e)
	h := w.Header()
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
