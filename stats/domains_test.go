package stats

import (
	"context"
	"fmt"
	"io/fs"
	"testing"

	"tracker/items"
	"tracker/migrations"
	"tracker/projects"
)

// done has nick claim one item and report bytes for it.
func (f fixture) done(t *testing.T, nick string, bytes map[string]int64) {
	t.Helper()
	ctx := context.Background()
	sum, err := f.store.Summary(ctx, f.project)
	if err != nil {
		t.Fatal(err)
	}
	h, err := f.engine.Request(ctx, &projects.Live{Project: f.project, Queues: sum.Queues, Summary: sum},
		items.ClaimRequest{Downloader: nick, Max: 1})
	if err != nil || len(h.Names) != 1 {
		t.Fatalf("%s claimed %v, %v", nick, h.Names, err)
	}
	if _, err := f.engine.Complete(ctx, f.project, items.Completion{Downloader: nick, Items: h.Names, Bytes: bytes}); err != nil {
		t.Fatal(err)
	}
}

// Anyone can report bytes for any domain: a project keeps and shows the
// DomainsKept with the most bytes and sums the others in "other", names
// that are no host-like names included, so what is stored and what every
// board reads stay bounded, and no byte is lost.
func TestDomainsKeptBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, 3)
	// Three dones of 100 domains each: d000 has 1 byte, d299 300.
	var total int64
	for batch := range 3 {
		bytes := map[string]int64{}
		for i := batch * 100; i < batch*100+100; i++ {
			bytes[fmt.Sprintf("d%03d", i)] = int64(i + 1)
			total += int64(i + 1)
		}
		if batch == 2 {
			// No host-like names: counted in "other", never apart.
			delete(bytes, "d200")
			delete(bytes, "d201")
			bytes["Not A Host!"], bytes["x\x00"] = 201, 202
		}
		f.done(t, "alice", bytes)
		if batch < 2 {
			// The first two folded, the last pending: the board merges them.
			if _, err := NewStore(f.pool).Fold(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	check := func(stage string) {
		t.Helper()
		hub := NewHub(f.pool, f.store, nil)
		defer hub.Close()
		b, _, _, err := hub.Board(ctx, f.project)
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Domains) != DomainsKept+1 {
			t.Fatalf("%s: %d domains on the board", stage, len(b.Domains))
		}
		var sum int64
		for i, d := range b.Domains[:DomainsKept] {
			// d299 down to d202, then d199 and d198: what the bad names
			// reported went to "other".
			want := fmt.Sprintf("d%03d", 299-i)
			if i >= 98 {
				want = fmt.Sprintf("d%03d", 199-(i-98))
			}
			if d.Domain != want {
				t.Fatalf("%s: domain %d is %+v, want %s", stage, i, d, want)
			}
			sum += d.Bytes
		}
		other := b.Domains[DomainsKept]
		if other.Domain != projects.OtherDomain || sum+other.Bytes != total {
			t.Fatalf("%s: other %+v, and %d bytes apart; want %d in all", stage, other, sum, total)
		}
	}
	check("pending")
	if _, err := NewStore(f.pool).Fold(ctx); err != nil {
		t.Fatal(err)
	}
	check("folded")
	var rows, strange int
	if err := f.pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE domain !~ '^[a-z0-9._-]+$') FROM domain_totals WHERE project_id = $1`,
		f.project.ID).Scan(&rows, &strange); err != nil {
		t.Fatal(err)
	}
	if rows != DomainsKept+1 || strange != 0 {
		t.Fatalf("%d rows stored, %d of them no host-like name; want %d", rows, strange, DomainsKept+1)
	}
}

// The migration that bounded the domains folds what a project stored
// before: its 100 host-like domains with the most bytes stay, the others
// and every other name go to "other", and no byte is lost.
func TestDomainsMigrationFoldsWhatWasStored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, 0)
	if _, err := f.pool.Exec(ctx, `INSERT INTO domain_totals (project_id, domain, bytes)
		SELECT $1::integer, 'd' || i, i FROM generate_series(1, 300) i
		UNION ALL SELECT $1, 'Random ' || repeat('x', 250), 1000
		UNION ALL SELECT $1, 'other', 7`, f.project.ID); err != nil {
		t.Fatal(err)
	}
	up, err := fs.ReadFile(migrations.FS, "000019_domain_totals_bounded.up.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.pool.Exec(ctx, string(up)); err != nil {
		t.Fatal(err)
	}
	var rows, least, other, sum int64
	if err := f.pool.QueryRow(ctx, `SELECT count(*), min(bytes) FILTER (WHERE domain <> 'other'),
		sum(bytes) FILTER (WHERE domain = 'other'), sum(bytes) FROM domain_totals WHERE project_id = $1`,
		f.project.ID).Scan(&rows, &least, &other, &sum); err != nil {
		t.Fatal(err)
	}
	// d201 to d300 stay; d1 to d200 (20,100 bytes), the random name and
	// what was "other" are summed.
	if rows != DomainsKept+1 || least != 201 || other != 20100+1000+7 || sum != 300*301/2+1000+7 {
		t.Fatalf("%d rows, the least %d bytes, other %d, %d in all", rows, least, other, sum)
	}
}
