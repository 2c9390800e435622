// Package audit records what admins do: who, when, from where, and what
// changed; and reads it back for the audit log page.
package audit

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/netip"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
)

// Actor is who changes something and from where. An admin request carries
// its actor in its context (NewContext); the packages that make a change
// record it in the actor's name, in the transaction of the change.
type Actor struct {
	UserID   int32  // 0 for the shell
	Username string // kept when the account is deleted
	IP       netip.Addr
	// Token names the API token the account acted through; empty for the
	// admin panel and the shell. Its entries say so (detail "token").
	Token string
}

type actorKey struct{}

// NewContext returns ctx carrying the actor: changes made with it are
// recorded.
func NewContext(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

func actorOf(ctx context.Context) (Actor, bool) {
	a, ok := ctx.Value(actorKey{}).(Actor)
	return a, ok
}

// Record writes an action (on projectID, when not 0) through q, inside the
// caller's transaction: an action and its record commit together, so the log
// never tells of a change that did not happen nor misses one that did.
// Without an actor in ctx (a job, a warrior, a test) nothing is recorded.
func Record(ctx context.Context, q *db.Queries, action string, projectID int32, detail map[string]any) error {
	p, ok, err := params(ctx, action, projectID, detail)
	if !ok || err != nil {
		return err
	}
	return q.AuditLogInsert(ctx, db.AuditLogInsertParams(p))
}

func params(ctx context.Context, action string, projectID int32, detail map[string]any) (db.AuditLogBeginParams, bool, error) {
	a, ok := actorOf(ctx)
	if !ok {
		return db.AuditLogBeginParams{}, false, nil
	}
	if a.Token != "" {
		named := map[string]any{"token": a.Token}
		maps.Copy(named, detail)
		detail = named
	}
	doc := []byte("{}")
	if detail != nil {
		var err error
		if doc, err = json.Marshal(detail); err != nil {
			return db.AuditLogBeginParams{}, false, err
		}
	}
	p := db.AuditLogBeginParams{Username: a.Username, Action: action, Detail: doc}
	if a.UserID != 0 {
		p.UserID = &a.UserID
	}
	if projectID != 0 {
		p.ProjectID = &projectID
	}
	if a.IP.IsValid() {
		p.IP = &a.IP
	}
	return p, true, nil
}

// A Tally is the record of an action done in many transactions (a queue
// move goes 5,000 items at a time): its entry is written before the first
// with a count of 0, and each batch adds what it changed to the count in its
// own transaction. However far the action gets, the entry counts exactly
// what was committed. A nil Tally records nothing.
type Tally struct {
	id  int64
	key string
	// entry, for a tally of BeginOnChange: the entry its first batch to
	// change something writes.
	entry *db.AuditLogTallyParams
}

// Begin writes the entry of a batched action with detail[key] = 0 and
// returns its tally; without an actor in ctx it returns nil.
func Begin(ctx context.Context, q *db.Queries, action string, projectID int32, detail map[string]any, key string) (*Tally, error) {
	counted := map[string]any{key: 0}
	maps.Copy(counted, detail)
	p, ok, err := params(ctx, action, projectID, counted)
	if !ok || err != nil {
		return nil, err
	}
	id, err := q.AuditLogBegin(ctx, p)
	if err != nil {
		return nil, err
	}
	return &Tally{id: id, key: key}, nil
}

// BeginOnChange is Begin for an action that may well change nothing (an
// import of names all seen before): its entry, dated now, is written by
// the first batch that changes something, in that batch's transaction, so
// an action that changes nothing leaves none.
func BeginOnChange(ctx context.Context, q *db.Queries, action string, projectID int32, detail map[string]any, key string) (*Tally, error) {
	p, ok, err := params(ctx, action, projectID, detail)
	if !ok || err != nil {
		return nil, err
	}
	r, err := q.AuditLogReserve(ctx)
	if err != nil {
		return nil, err
	}
	return &Tally{id: r.ID, key: key, entry: &db.AuditLogTallyParams{
		ID: r.ID, At: r.At, UserID: p.UserID, Username: p.Username, IP: p.IP,
		Action: p.Action, ProjectID: p.ProjectID, Detail: p.Detail, Key: key,
	}}, nil
}

// Batch runs one batch of the action in a transaction of pool, adding the
// number of things it changed to the count before committing.
func (t *Tally) Batch(ctx context.Context, pool db.TxStarter, batch func(q *db.Queries) (int64, error)) (int64, error) {
	var n int64
	err := db.WithTx(ctx, pool, func(q *db.Queries) error {
		var err error
		if n, err = batch(q); err != nil || t == nil || n == 0 {
			return err
		}
		if t.entry != nil {
			e := *t.entry
			e.N = n
			return q.AuditLogTally(ctx, e)
		}
		return q.AuditLogCount(ctx, db.AuditLogCountParams{ID: t.id, Key: t.key, N: n})
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// Note adds detail to the action's entry once its batches are done (an
// import cut short says why), through q: nothing when the action left no
// entry (BeginOnChange) or records nothing.
func (t *Tally) Note(ctx context.Context, q *db.Queries, detail map[string]any) error {
	if t == nil {
		return nil
	}
	doc, err := json.Marshal(detail)
	if err != nil {
		return err
	}
	return q.AuditLogNote(ctx, db.AuditLogNoteParams{ID: t.id, Note: doc})
}

// Log is the audit log of a database.
type Log struct {
	q *db.Queries
}

func New(pool *pgxpool.Pool) *Log { return &Log{q: db.Of(pool)} }

// Record writes an action that changes nothing else (a sign-in) in the name
// of ctx's actor.
func (l *Log) Record(ctx context.Context, action string) error {
	return Record(ctx, l.q, action, 0, nil)
}

// Filter picks entries; each field applies when set. Since and Until
// bound when they were made (Since included, Until not). Before continues
// a page: entries older than the one with that id.
type Filter struct {
	ProjectID    int32
	Username     string
	Action       string
	Since, Until *time.Time
	Before       int64
	Max          int
}

// Row is an entry as the audit log page shows it.
type Row struct {
	ID          int64
	At          time.Time
	Username    string
	IP          netip.Addr // invalid for the shell
	Action      string
	ProjectSlug string
	Detail      string // JSON
}

// List returns the newest entries the filter picks.
func (l *Log) List(ctx context.Context, f Filter) ([]Row, error) {
	rows, err := l.q.AuditLogList(ctx, db.AuditLogListParams{ProjectID: f.ProjectID, Username: f.Username,
		Action: f.Action, Since: f.Since, Until: f.Until, BeforeID: f.Before, Max: int32(f.Max)})
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, err
	}
	out := make([]Row, len(rows))
	for i, r := range rows {
		out[i] = Row{ID: r.ID, At: r.At, Username: r.Username, Action: r.Action, ProjectSlug: r.ProjectSlug, Detail: string(r.Detail)}
		if r.IP != nil {
			out[i].IP = *r.IP
		}
	}
	return out, nil
}

// ShellPrefix begins the name a change made with the command line is
// recorded under; a panel account's name never holds a colon.
const ShellPrefix = "shell:"

// Shell is the actor of a command run in a shell by the operating-system
// user osUser: recorded as "shell:osUser", no account, no address.
func Shell(osUser string) Actor { return Actor{Username: ShellPrefix + osUser} }
