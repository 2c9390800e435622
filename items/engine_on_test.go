package items_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// An engine On another pool remembers what the engine it was made of
// remembers (one engine a process): the site ids the admin side's import
// learned are known to the warriors' side, and its statements run on the
// pool it was given.
func TestEngineOnSharesItsMemory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	if _, err := f.store.Set(ctx, f.project, []string{"site_key=host"}); err != nil {
		t.Fatal(err)
	}
	p, err := f.store.Get(ctx, f.project.Slug)
	if err != nil {
		t.Fatal(err)
	}
	other, err := pgxpool.NewWithConfig(ctx, f.pool.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	admin := f.engine.On(other)
	if _, err := admin.Add(ctx, p, "todo", strings.NewReader("https://a.example/1\nhttps://b.example/2\n")); err != nil {
		t.Fatal(err)
	}
	if other.Stat().AcquireCount() == 0 {
		t.Fatal("the admin side's import ran on another pool than the one it was given")
	}
	if n := f.engine.SitesKnown(); n != 2 {
		t.Fatalf("the warriors' side knows %d site ids after the admin side queued two sites' items", n)
	}
	if s := f.summary(t); s.Queues["todo"] != 2 {
		t.Fatalf("queued %d", s.Queues["todo"])
	}
}
