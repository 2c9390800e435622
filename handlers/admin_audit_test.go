package handlers_test

import (
	"fmt"
	"net/url"
	"testing"
)

// An admin action and its audit entry commit together: when the entry
// cannot be written the action does not happen, and an action done in
// batches has an entry that counts exactly the batches committed.
func TestAuditCommitsWithTheChange(t *testing.T) {
	t.Parallel()
	names := make([]string, 12_000)
	for i := range names {
		names[i] = fmt.Sprintf("post:%d", i)
	}
	f := setup(t, names...)
	ctx := t.Context()
	c := f.admin(t)

	// The log refuses configuration entries, and any count past one batch
	// of a queue move (5,000 items).
	if _, err := f.pool.Exec(ctx, `
		CREATE FUNCTION refuse_entry() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'the audit log refuses this entry'; END $$;
		CREATE TRIGGER refuse_config BEFORE INSERT ON audit_log FOR EACH ROW
		WHEN (NEW.action = 'project.config') EXECUTE FUNCTION refuse_entry();
		CREATE TRIGGER refuse_second_batch BEFORE UPDATE ON audit_log FOR EACH ROW
		WHEN ((NEW.detail ->> 'items')::bigint > 5000) EXECUTE FUNCTION refuse_entry();`); err != nil {
		t.Fatal(err)
	}

	a := c.post(t, "/admin/projects/test/config", url.Values{"section": {"claims"}, "reclaim_ttl": {"600"}})
	if a.status != 500 {
		t.Fatalf("config with its entry refused: %d", a.status)
	}
	if p := f.stored(t, "test"); p.Config.ReclaimTTL == 600 {
		t.Fatal("the configuration changed without its audit entry")
	}

	a = c.confirmed(t, "/admin/projects/test/queues/move", url.Values{"from": {"todo"}, "to": {"redo"}}, "moves 12,000 items")
	if a.status != 500 {
		t.Fatalf("move with its second batch's count refused: %d", a.status)
	}
	var moved, counted int64
	if err := f.pool.QueryRow(ctx, "SELECT count(*) FROM todo WHERE queue = 'redo'").Scan(&moved); err != nil {
		t.Fatal(err)
	}
	if err := f.pool.QueryRow(ctx, `SELECT (detail ->> 'items')::bigint FROM audit_log
		WHERE action = 'queue.move' AND username = 'root' AND detail ->> 'to' = 'redo'`).Scan(&counted); err != nil {
		t.Fatal(err)
	}
	if moved != 5000 || counted != moved {
		t.Fatalf("%d items moved, the audit log says %d", moved, counted)
	}
}
