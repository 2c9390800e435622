package main

import (
	"context"
	"os/user"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db/dbtest"
)

// What a command changes is in the audit log, in the name of the
// operating-system user who ran it ("shell:NAME", no account, no address),
// as what admins change in the panel is in theirs; reading commands leave
// nothing.
func TestCommandsAreAudited(t *testing.T) {
	t.Parallel()
	dsn := dbtest.NewDSN(t)
	me, err := user.Current()
	if err != nil {
		t.Skip("no operating-system user to expect:", err)
	}
	trackerOK(t, dsn, "", "project", "create", "demo")
	trackerOK(t, dsn, "", "project", "set", "demo", "rate_limit=60")
	trackerOK(t, dsn, "a:1\na:2\n", "items", "add", "demo")
	trackerOK(t, dsn, "", "project", "show", "demo")

	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	rows, err := pool.Query(context.Background(),
		"SELECT action, username, user_id IS NULL AND ip IS NULL FROM audit_log ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var action, who string
		var anonymous bool
		if err := rows.Scan(&action, &who, &anonymous); err != nil {
			t.Fatal(err)
		}
		if who != "shell:"+me.Username || !anonymous {
			t.Errorf("%s recorded as %q (no account, no address: %v), want shell:%s", action, who, anonymous, me.Username)
		}
		got = append(got, action)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"project.config", "items.add"} {
		found := false
		for _, a := range got {
			found = found || a == want
		}
		if !found {
			t.Errorf("no %s entry among %v", want, got)
		}
	}
}
