package handlers_test

import (
	"fmt"
	"strings"
	"testing"

	"tracker/db/dbtest"
)

// Upload receipts are kept for items the project has out or done, and for
// nothing else: a stranger cannot grow the table with made-up names, nor
// one item's receipts without end.
func TestUploadReceipts(t *testing.T) {
	t.Parallel()
	f := setup(t, "out:1", "done:1", "queued:1")
	receipts := func() int64 {
		t.Helper()
		return dbtest.Count(t, f.pool, "SELECT count(*) FROM uploads")
	}
	receipt := func(uploader, item, server string) answer {
		return f.do(t, "POST", "/test/uploaded", fmt.Sprintf(`{"uploader":%q,"item":%s,"server":%q}`, uploader, jsonString(item), server))
	}
	got, _ := f.request(t, "alice", 2)
	if strings.Join(got, ",") != "out:1,done:1" {
		t.Fatalf("handed out %v", got)
	}
	f.done(t, "alice", "done:1")

	// Never seen, seen but only queued: refused with the reason, nothing kept.
	for _, item := range []string{"nothing:1", "queued:1", strings.Repeat("x", 2000)} {
		if a := receipt("alice", item, "up.example"); a.status != 404 || a.reason != "unknown-item" {
			t.Fatalf("receipt for %.20s: %d %q %q", item, a.status, a.reason, a.body)
		}
	}
	if n := receipts(); n != 0 {
		t.Fatalf("%d receipts kept for items never out", n)
	}

	// Out or done: kept; the oldest clients' "user" is the item.
	if a := receipt("alice", "out:1", "up.example"); a.status != 200 || a.body != "OK\n" {
		t.Fatalf("receipt for an item out: %d %q", a.status, a.body)
	}
	if a := f.do(t, "POST", "/test/uploaded", `{"uploader":"alice","user":"done:1","server":"up.example"}`); a.status != 200 {
		t.Fatalf("receipt for an item done: %d %q", a.status, a.body)
	}
	// A repeat replaces its receipt.
	if a := receipt("alice", "out:1", "up.example"); a.status != 200 {
		t.Fatalf("repeated receipt: %d %q", a.status, a.body)
	}
	if n := receipts(); n != 2 {
		t.Fatalf("%d receipts, want 2", n)
	}

	// One item keeps 8 receipts; a ninth is refused, a repeat still taken.
	for i := range 7 {
		if a := receipt("alice", "done:1", fmt.Sprintf("up%d.example", i)); a.status != 200 {
			t.Fatalf("receipt %d: %d %q", i, a.status, a.body)
		}
	}
	if a := receipt("bob", "done:1", "up.example"); a.status != 409 || a.reason != "too-many-receipts" {
		t.Fatalf("a ninth receipt of an item: %d %q", a.status, a.reason)
	}
	if a := receipt("alice", "done:1", "up3.example"); a.status != 200 {
		t.Fatalf("a repeat at the limit: %d %q", a.status, a.body)
	}
	if n := receipts(); n != 9 {
		t.Fatalf("%d receipts, want 9", n)
	}

	// Too big: the body, or the server's name.
	if a := receipt("alice", "out:1", strings.Repeat("s", 20<<10)); a.status != 413 || a.reason != "body-too-large" {
		t.Fatalf("a 20 KiB receipt: %d %q", a.status, a.reason)
	}
	if a := receipt("alice", "out:1", strings.Repeat("s", 1025)); a.status != 400 || a.reason != "invalid-server" {
		t.Fatalf("a server name of 1025 bytes: %d %q", a.status, a.reason)
	}
	if n := receipts(); n != 9 {
		t.Fatalf("%d receipts after refusals, want 9", n)
	}
}
