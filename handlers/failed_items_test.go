package handlers_test

import (
	"context"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"tracker/db/dbtest"
	"tracker/items"
)

// expireClaims makes every claim of the project old enough to expire, and runs
// the reclaim job's step once.
func (f fixture) expireClaims(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	dbtest.Age(t, f.pool, 24*time.Hour, dbtest.Claims(f.project.ID))
	p, err := f.store.Get(ctx, f.project.Slug)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := items.NewEngine(f.pool, slog.New(slog.NewTextHandler(io.Discard, nil))).ReclaimExpired(ctx, p, 100); err != nil {
		t.Fatal(err)
	}
}

// An item that fails shows on the board, in stats.json and /metrics, in
// the admin panel's list of failed items with its history, and is queued
// again from there.
func TestFailedItems(t *testing.T) {
	t.Parallel()
	f := setup(t, "user:lost", "user:fine")
	ctx := context.Background()
	if _, err := f.store.Set(ctx, f.project, []string{"reclaim_ttl=60", "max_claims=1"}); err != nil {
		t.Fatal(err)
	}
	if a := f.do(t, "POST", "/test/request", `{"downloader":"alice"}`); a.status != 200 || !strings.Contains(a.body, `"user:lost"`) {
		t.Fatalf("request: %d %q", a.status, a.body)
	}
	f.expireClaims(t)

	if a := f.do(t, "GET", "/test/stats.json", ""); !strings.Contains(a.body, `"errors":1`) || !strings.Contains(a.body, `"todo":1`) {
		t.Fatalf("stats.json: %s", a.body)
	}
	if v, ok := metricValue(t, f.metrics(t), "tracker_project_items_failed_total", map[string]string{"project": "test"}); !ok || v != 1 {
		t.Fatalf("/metrics: %v items failed", v)
	}
	page := f.do(t, "GET", "/test/", "")
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(page.body))
	if got := doc.Find(`[data-testid="errors-count"]`).Text(); got != "1" {
		t.Fatalf("leaderboard failed count %q", got)
	}
	if a := f.do(t, "GET", "/test/?item=user:lost", ""); !strings.Contains(a.body, "failed") {
		t.Fatal("the public lookup does not say the item failed")
	}

	c := f.admin(t)
	a := c.get(t, "/admin/projects/test/queues")
	doc, _ = goquery.NewDocumentFromReader(strings.NewReader(a.body))
	if rows := doc.Find(`[data-testid="error-item"]`); rows.Length() != 1 || !strings.Contains(rows.Text(), "user:lost") || !strings.Contains(rows.Text(), "alice") {
		t.Fatalf("failed items list: %q", rows.Text())
	}
	a = c.get(t, "/admin/projects/test/?item=user:lost")
	doc, _ = goquery.NewDocumentFromReader(strings.NewReader(a.body))
	if got := doc.Find(`[data-testid="admin-item-status"]`).Text(); got != "failed" {
		t.Fatalf("admin item status %q", got)
	}
	if !strings.Contains(doc.Find(`[data-testid="admin-item-history"]`).Text(), "alice") || doc.Find(`[data-testid="item-requeue"]`).Length() != 1 {
		t.Fatalf("admin item page: %s", doc.Find(`[data-testid="admin-item"]`).Text())
	}
	if a := c.post(t, "/admin/projects/test/item/requeue", url.Values{"name": {"user:lost"}}); a.status != 303 {
		t.Fatalf("requeue: %d %s", a.status, a.body)
	}
	if s := f.summary(t); s.Errors() != 0 || s.Queues["todo"] != 2 {
		t.Fatalf("after the requeue: %v", s.Queues)
	}
	// Dropping is for failed items only.
	if a := c.post(t, "/admin/projects/test/item/drop", url.Values{"name": {"user:fine"}}); a.status != 400 {
		t.Fatalf("drop of a queued item: %d", a.status)
	}
}

// A warrior whose claims keep running out is told so, with the reason and
// when to come back.
func TestTooManyExpired(t *testing.T) {
	t.Parallel()
	f := setup(t, "a", "b", "c")
	if _, err := f.store.Set(context.Background(), f.project, []string{"reclaim_ttl=60", "expired_claims_limit=1"}); err != nil {
		t.Fatal(err)
	}
	f.do(t, "POST", "/test/request", `{"downloader":"mallory"}`)
	f.expireClaims(t)
	a := f.do(t, "POST", "/test/request", `{"downloader":"mallory"}`)
	if a.status != 429 || a.reason != "too-many-expired" || a.header.Get("Retry-After") == "" {
		t.Fatalf("mallory: %d %q %q", a.status, a.reason, a.header.Get("Retry-After"))
	}
	if a := f.do(t, "POST", "/test/request", `{"downloader":"alice"}`); a.status != 200 {
		t.Fatalf("alice: %d", a.status)
	}
}
