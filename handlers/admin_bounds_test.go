package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"tracker/projects"
)

// Every text an admin enters is bounded by what it feeds, where it is
// stored: one past its bound is refused, 400 naming the field and the
// bound, and nothing is stored. A block's reason ends a refusal line each
// request of the blocked nick gets; a URL is what browsers, curl and rsync
// take; a title heads the pages and the warriors' project list.
func TestAdminTextsBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	c := f.admin(t)
	long := func(prefix string, n int, suffix string) string {
		return prefix + strings.Repeat("x", n-len(prefix)-len(suffix)) + suffix
	}
	refused := func(t *testing.T, what string, a answer, reason, field string, bound int) {
		t.Helper()
		if a.status != http.StatusBadRequest || a.reason != reason || !strings.Contains(a.body, field) || !strings.Contains(a.body, "at most "+strconv.Itoa(bound)) {
			t.Fatalf("%s: %d %q, want 400 %s naming %s and %d", what, a.status, a.reason, reason, field, bound)
		}
	}

	t.Run("block reason", func(t *testing.T) {
		a := c.post(t, "/admin/projects/test/blocks/add", url.Values{"kind": {"nick"}, "value": {"spammer"}, "reason": {strings.Repeat("x", projects.MaxBlockReason+1)}})
		refused(t, "a reason of one byte past the bound", a, "too-long", "reason", projects.MaxBlockReason)
		if err := f.store.AddBlock(ctx, projects.Block{Kind: projects.BlockNick, Value: "spammer", Reason: "two\nlines"}); err == nil {
			t.Fatal("a reason of two lines stored")
		}
		if bs, err := f.store.Blocks(ctx, f.project); err != nil || len(bs) != 0 {
			t.Fatalf("blocks after the refusals: %+v %v", bs, err)
		}
		if a := c.post(t, "/admin/projects/test/blocks/add", url.Values{"kind": {"nick"}, "value": {"spammer"}, "reason": {strings.Repeat("x", projects.MaxBlockReason)}}); a.status != 303 {
			t.Fatalf("a reason at the bound: %d %q", a.status, a.reason)
		}
	})

	t.Run("upload target", func(t *testing.T) {
		a := c.post(t, "/admin/projects/test/targets/add", url.Values{"url": {long("rsync://up.example/", projects.MaxURL+1, "/")}, "weight": {"1"}, "enabled": {"true"}})
		refused(t, "a target of one byte past the bound", a, "too-long", "upload target", projects.MaxURL)
		if ts, err := f.store.Targets(ctx, f.project); err != nil || len(ts) != 0 {
			t.Fatalf("targets after the refusal: %+v %v", ts, err)
		}
		if a := c.post(t, "/admin/projects/test/targets/add", url.Values{"url": {long("rsync://up.example/", projects.MaxURL, "/")}, "weight": {"1"}}); a.status != 303 {
			t.Fatalf("a target at the bound: %d %q", a.status, a.reason)
		}
	})

	t.Run("project title", func(t *testing.T) {
		a := c.post(t, "/admin/projects", url.Values{"slug": {"long"}, "title": {strings.Repeat("x", projects.MaxTitle+1)}})
		refused(t, "a title of one byte past the bound", a, "too-long", "title", projects.MaxTitle)
		if _, err := f.store.Get(ctx, "long"); err == nil {
			t.Fatal("the project was created")
		}
	})

	t.Run("project URLs", func(t *testing.T) {
		for _, key := range []string{"repository", "logo"} {
			a := c.post(t, "/admin/projects/test/config", url.Values{"section": {"warriors"}, key: {long("https://example.org/", projects.MaxURL+1, "")}})
			if a.status != http.StatusBadRequest || !strings.Contains(a.body, "at most "+strconv.Itoa(projects.MaxURL)) {
				t.Fatalf("a %s of one byte past the bound: %d %q", key, a.status, a.reason)
			}
		}
		if p := f.stored(t, "test"); p.Config.Repository != "" || p.Config.Logo != "" {
			t.Fatalf("stored: %q %q", p.Config.Repository, p.Config.Logo)
		}
	})
}
