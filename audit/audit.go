// Package audit records what admins do: who, when, from where, and what
// changed.
package audit

import (
	"context"
	"encoding/json"
	"net/netip"

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
