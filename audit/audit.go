// Package audit records what admins do: who, when, from where, and what
// changed; and reads it back for the audit log page.
package audit

import (
	"context"
	"encoding/json"
	"errors"
	"net/netip"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
)

// Entry is one admin action.
type Entry struct {
	UserID    int32  // 0 for the shell
	Username  string // kept when the account is deleted
	IP        netip.Addr
	Action    string // "project.config", "items.add", ...
	ProjectID int32  // 0 when the action is not about one project
	Detail    map[string]any
}

// Record writes the entry through q, inside the caller's transaction when q
// is one: an action and its record commit together.
func Record(ctx context.Context, q *db.Queries, e Entry) error {
	detail, err := json.Marshal(e.Detail)
	if err != nil {
		return err
	}
	if e.Detail == nil {
		detail = []byte("{}")
	}
	p := db.AuditLogInsertParams{Username: e.Username, Action: e.Action, Detail: detail}
	if e.UserID != 0 {
		p.UserID = &e.UserID
	}
	if e.ProjectID != 0 {
		p.ProjectID = &e.ProjectID
	}
	if e.IP.IsValid() {
		p.IP = &e.IP
	}
	return q.AuditLogInsert(ctx, p)
}

// Log is the audit log of a database.
type Log struct {
	q *db.Queries
}

func New(pool *pgxpool.Pool) *Log { return &Log{q: db.New(pool)} }

// Record writes an entry on its own.
func (l *Log) Record(ctx context.Context, e Entry) error { return Record(ctx, l.q, e) }

// Filter picks entries; each field applies when set. Before continues a
// page: entries older than the one with that id.
type Filter struct {
	ProjectID int32
	Username  string
	Action    string
	Before    int64
	Max       int
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
		Action: f.Action, BeforeID: f.Before, Max: int32(f.Max)})
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
