package projects_test

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"tracker/db/dbtest"
	"tracker/projects"
)

// countRanges are the ranges of the whole-number keys, as documented in
// docs/ADMIN.md's configuration table.
var countRanges = map[string][2]int64{
	"max_multi":               {1, 10_000},
	"reclaim_ttl":             {0, 316_224_000},
	"claims_limit":            {0, 1_000_000_000},
	"downloader_claims_limit": {0, 1_000_000_000},
	"max_claims":              {0, 1_000_000},
	"expired_claims_limit":    {0, 1_000_000_000},
	"rate_limit":              {0, 1_000_000_000},
	"site_claims_limit":       {0, 1_000_000},
	"site_interval":           {0, 31_622_400},
	"recrawl_after":           {0, 316_224_000},
	"archive_after":           {0, 316_224_000},
	"revisit_after":           {1, 316_224_000},
	"files_per_item":          {1, 1000},
}

// Every whole-number key takes the values of its range and refuses the
// others with the key named, changing nothing: the engine's arithmetic on
// a value (seconds to microseconds, now ± seconds, sums of counts) never
// leaves PostgreSQL's ranges.
func TestNumericKeysHaveRanges(t *testing.T) {
	t.Parallel()
	base := projects.Project{Slug: "demo", Config: projects.DefaultConfig()}
	for _, k := range projects.Keys {
		if k.Input != projects.InputCount {
			continue
		}
		r, ok := countRanges[k.Name]
		if !ok {
			t.Errorf("%s: a whole-number key with no documented range", k.Name)
			continue
		}
		for _, v := range []int64{r[0], r[1]} {
			p, err := base.With([]string{k.Name + "=" + strconv.FormatInt(v, 10)})
			if err != nil || p.Value(k.Name) != strconv.FormatInt(v, 10) {
				t.Errorf("%s=%d: %q, %v", k.Name, v, p.Value(k.Name), err)
			}
		}
		for _, v := range []string{strconv.FormatInt(r[0]-1, 10), strconv.FormatInt(r[1]+1, 10), "5000000000000", "9223372036854775807"} {
			_, err := base.With([]string{k.Name + "=" + v})
			var fe projects.FieldErrors
			if !errors.As(err, &fe) || fe[k.Name] == "" || !strings.Contains(fe[k.Name], strconv.FormatInt(r[1], 10)) {
				t.Errorf("%s=%s: %v; want a refusal naming the range", k.Name, v, err)
			}
		}
	}
	if _, err := base.With([]string{"type_limits=post:1000000000"}); err != nil {
		t.Errorf("type_limits at its most: %v", err)
	}
	for _, v := range []string{"post:0", "post:1000000001", "post:9223372036854775807"} {
		if _, err := base.With([]string{"type_limits=" + v}); err == nil {
			t.Errorf("type_limits=%s accepted", v)
		}
	}
}

// A configuration stored out of range, before the ranges existed, is read
// clamped into them: the project works with the nearest values, and its
// next change stores them.
func TestConfigClampedOnRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	p := dbtest.Project(t, pool, "demo", "")
	if _, err := pool.Exec(ctx, `UPDATE projects SET config = config || '{"reclaim_ttl": 5000000000000, "revisit_after": -5,
		"archive_after": 9223372036854775807, "max_claims": 9223372036854775807, "rate_limit": 9000000000000000000,
		"type_limits": {"post": 9223372036854775807}, "max_multi": 0, "site_interval": 9223372036854775807,
		"score_full": 1e300}'::jsonb WHERE id = $1`, p.ID); err != nil {
		t.Fatal(err)
	}
	p, err := store.Get(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	c := p.Config
	if c.ReclaimTTL != 316_224_000 || c.RevisitAfter != 1 || c.ArchiveAfter != 316_224_000 || c.MaxClaims != 1_000_000 ||
		c.RateLimit != 1_000_000_000 || c.TypeLimits["post"] != 1_000_000_000 || c.MaxMulti != 1 || c.SiteInterval != 31_622_400 ||
		c.ScoreFull != projects.MaxFactor {
		t.Fatalf("read %+v; want every value clamped", c)
	}
	// Another change is not refused for the values stored before, and
	// stores them clamped.
	if _, err := store.Set(ctx, p, []string{"title=Demo"}); err != nil {
		t.Fatalf("a change of a project stored out of range: %v", err)
	}
	var ttl int64
	if err := pool.QueryRow(ctx, "SELECT (config->>'reclaim_ttl')::bigint FROM projects WHERE id = $1", p.ID).Scan(&ttl); err != nil || ttl != 316_224_000 {
		t.Fatalf("stored reclaim_ttl %d, %v", ttl, err)
	}
}

// recrawl_after and mode=recurring are refused together, whichever is set
// first: a recrawl would queue an item that also waits for its visit. The
// refusal names recrawl_after and changes nothing.
func TestRecrawlRefusedInRecurringProjects(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := projects.NewStore(dbtest.New(t))
	for i, c := range []struct{ first, then []string }{
		{[]string{"mode=recurring"}, []string{"recrawl_after=60"}},
		{[]string{"recrawl_after=60"}, []string{"mode=recurring"}},
		{nil, []string{"mode=recurring", "recrawl_after=60"}},
	} {
		p, err := store.Create(ctx, "p"+strconv.Itoa(i), "")
		if err != nil {
			t.Fatal(err)
		}
		if c.first != nil {
			if p, err = store.Set(ctx, p, c.first); err != nil {
				t.Fatalf("%v: %v", c.first, err)
			}
		}
		_, err = store.Set(ctx, p, c.then)
		var fe projects.FieldErrors
		if !errors.As(err, &fe) || fe["recrawl_after"] == "" {
			t.Fatalf("%v then %v: %v; want recrawl_after refused", c.first, c.then, err)
		}
		stored, err := store.Get(ctx, p.Slug)
		if err != nil {
			t.Fatal(err)
		}
		if stored.Config.Recurring() != p.Config.Recurring() || stored.Config.RecrawlAfter != p.Config.RecrawlAfter {
			t.Fatalf("%v then %v: the refused change was stored: %+v", c.first, c.then, stored.Config)
		}
	}
}

// A value in seconds becomes a time.Duration clamped into the range of the
// keys in seconds: never negative, never wrapped round.
func TestDuration(t *testing.T) {
	t.Parallel()
	most := time.Duration(countRanges["reclaim_ttl"][1]) * time.Second
	for _, tc := range []struct {
		seconds int64
		want    time.Duration
	}{
		{0, 0},
		{60, time.Minute},
		{countRanges["reclaim_ttl"][1], most},
		{-1, 0},
		{math.MinInt64, 0},
		{math.MaxInt64, most},
		{math.MaxInt64 / int64(time.Second) * 2, most},
	} {
		if got := projects.Duration(tc.seconds); got != tc.want {
			t.Errorf("Duration(%d) = %v, want %v", tc.seconds, got, tc.want)
		}
	}
}

// Every text key is held to its bound, and the list keys to their most
// entries: one past it is refused naming the bound, the bound itself is
// taken.
func TestTextKeysBounded(t *testing.T) {
	t.Parallel()
	base := projects.Project{Slug: "demo", Config: projects.DefaultConfig()}
	list := func(n int, entry string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = strings.ReplaceAll(entry, "N", strconv.Itoa(i))
		}
		return strings.Join(parts, ",")
	}
	for _, tc := range []struct {
		key         string
		at, past    string
		bound, what string
	}{
		{"title", strings.Repeat("x", projects.MaxTitle), strings.Repeat("x", projects.MaxTitle+1), strconv.Itoa(projects.MaxTitle), "bytes"},
		{"repository", "https://example.org/" + strings.Repeat("x", projects.MaxURL-20), "https://example.org/" + strings.Repeat("x", projects.MaxURL-19), strconv.Itoa(projects.MaxURL), "bytes"},
		{"logo", "https://example.org/" + strings.Repeat("x", projects.MaxURL-20), "https://example.org/" + strings.Repeat("x", projects.MaxURL-19), strconv.Itoa(projects.MaxURL), "bytes"},
		{"description", strings.Repeat("x", projects.MaxText), strings.Repeat("x", projects.MaxText+1), strconv.Itoa(projects.MaxText), "bytes"},
		{"domains", list(projects.MaxListed, "dN"), list(projects.MaxListed+1, "dN"), strconv.Itoa(projects.MaxListed), "domains"},
		{"type_limits", list(projects.MaxListed, "tN:1"), list(projects.MaxListed+1, "tN:1"), strconv.Itoa(projects.MaxListed), "types"},
	} {
		if _, err := base.With([]string{tc.key + "=" + tc.at}); err != nil {
			t.Errorf("%s at its bound: %v", tc.key, err)
		}
		_, err := base.With([]string{tc.key + "=" + tc.past})
		var fe projects.FieldErrors
		if !errors.As(err, &fe) || !strings.Contains(fe[tc.key], "at most "+tc.bound+" "+tc.what) {
			t.Errorf("%s past its bound: %.200v; want a refusal naming %s %s", tc.key, err, tc.bound, tc.what)
		}
	}
}
