package dbtest_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"tracker/db/dbtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// failures is a test whose failures are recorded, not reported: Fatalf
// stops the helper as it stops a test.
type failures struct {
	testing.TB
	fatal string
}

type stopped struct{}

func (f *failures) Fatalf(format string, args ...any) {
	f.fatal = fmt.Sprintf(format, args...)
	panic(stopped{})
}

// run calls helper with f, and returns what it failed with ("" when it
// did not).
func (f *failures) run(helper func(testing.TB)) (fatal string) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(stopped); !ok {
				panic(r)
			}
			fatal = f.fatal
		}
	}()
	helper(f)
	return ""
}

// A failed or empty query fails the test, never reads as zero.
func TestQueryHelpersFail(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	f := &failures{TB: t}
	if n := dbtest.Count(t, pool, "SELECT count(*) FROM generate_series(1, 3)"); n != 3 {
		t.Fatalf("count %d, want 3", n)
	}
	if n := dbtest.MustExec(t, pool, "CREATE TABLE scratch AS SELECT g FROM generate_series(1, 4) g"); n != 4 {
		t.Fatalf("%d rows made, want 4", n)
	}
	for sql, want := range map[string]string{
		"SELECT count(*) FROM nowhere":               "nowhere",
		"SELECT sum(g) FROM scratch WHERE g > 10":    "NULL",
		"SELECT g FROM scratch WHERE g > 10 LIMIT 1": "no rows",
	} {
		if fatal := f.run(func(tb testing.TB) { dbtest.Count(tb, pool, sql) }); !strings.Contains(fatal, want) {
			t.Errorf("Count(%s) failed with %q, want %q", sql, fatal, want)
		}
	}
	if fatal := f.run(func(tb testing.TB) { dbtest.MustExec(tb, pool, "DELETE FROM nowhere") }); !strings.Contains(fatal, "nowhere") {
		t.Errorf("MustExec of a missing table failed with %q", fatal)
	}
	var g int
	if fatal := f.run(func(tb testing.TB) {
		dbtest.MustScan(tb, pool.QueryRow(t.Context(), "SELECT g FROM scratch WHERE g > 10"), &g)
	}); !strings.Contains(fatal, "no rows") {
		t.Errorf("MustScan of no row failed with %q", fatal)
	}
	dbtest.MustScan(t, pool.QueryRow(t.Context(), "SELECT max(g) FROM scratch"), &g)
	if g != 4 {
		t.Fatalf("scanned %d, want 4", g)
	}
}

func TestProject(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	p := dbtest.Project(t, pool, "demo", "Demo", "reclaim_ttl=60", "order=random")
	if p.Slug != "demo" || p.Title != "Demo" || p.Config.ReclaimTTL != 60 || p.Config.Order != "random" {
		t.Fatalf("project %+v", p)
	}
	f := &failures{TB: t}
	if fatal := f.run(func(tb testing.TB) { dbtest.Project(tb, pool, "demo", "") }); !strings.Contains(fatal, "demo") {
		t.Errorf("a second project demo failed with %q", fatal)
	}
	if fatal := f.run(func(tb testing.TB) { dbtest.Project(tb, pool, "other", "", "order=sideways") }); !strings.Contains(fatal, "order") {
		t.Errorf("a refused assignment failed with %q", fatal)
	}
}

// Eventually returns once the condition holds, and fails naming what it
// waited for when it does not.
func TestEventually(t *testing.T) {
	t.Parallel()
	asked := 0
	dbtest.Eventually(t, func() bool { asked++; return asked == 5 }, "the fifth time")
	if asked != 5 {
		t.Fatalf("asked %d times, want 5", asked)
	}
	f := &failures{TB: t}
	asked = 0
	fatal := f.run(func(tb testing.TB) {
		dbtest.EventuallyWithin(tb, 20*time.Millisecond, func() bool { asked++; return false }, "never")
	})
	if !strings.HasPrefix(fatal, "never: ") || asked < 2 {
		t.Fatalf("failed with %q after %d tries", fatal, asked)
	}
}
