package items_test

import (
	"context"
	"testing"

	"tracker/items"
	"tracker/projects"
	"tracker/refusal"
)

// The engine refuses what a warrior sent that no request or release can
// carry, whichever route it came by, with the protocol's reason, and
// claims or releases nothing.
func TestEngineRefusesInvalidWarriorInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	f.add(t, "todo", "item:1")
	held := f.claim(t, "alice", 1)
	reason := func(err error) string {
		if r, ok := refusal.Of(err); ok && r.Kind == refusal.Invalid {
			return r.Reason
		}
		return ""
	}
	for _, c := range []struct {
		what, want string
		err        func() error
	}{
		{"a request by a nick with a space", "invalid-downloader", func() error {
			_, err := f.request("al ice", 1)
			return err
		}},
		{"a request of a version with a NUL", "invalid-version", func() error {
			live, err := projects.NewCache(f.store, 0).Get(ctx, f.project.Slug)
			if err != nil {
				return err
			}
			_, err = f.engine.Request(ctx, live, items.ClaimRequest{Downloader: "bob", Version: "1\x00", Max: 1})
			return err
		}},
		{"a release by a nick with a slash", "invalid-downloader", func() error {
			_, err := f.engine.ReleaseFrom(ctx, f.project, held, "a/b", addr("192.0.2.1"))
			return err
		}},
		{"a release of an empty name", "invalid-item", func() error {
			_, err := f.engine.ReleaseFrom(ctx, f.project, append(held, ""), "alice", addr("192.0.2.1"))
			return err
		}},
		{"a release without a downloader of an empty name", "invalid-item", func() error {
			_, err := f.engine.ReleaseOwn(ctx, f.project, append(held, ""), addr("192.0.2.1"))
			return err
		}},
	} {
		if err := c.err(); reason(err) != c.want {
			t.Errorf("%s: %v, want refused %s", c.what, err, c.want)
		}
	}
	if s := f.summary(t); s.Claims != 1 {
		t.Fatalf("after the refusals %d claims, want alice's one", s.Claims)
	}
}
