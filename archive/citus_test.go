package archive

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"tracker/db/dbtest"
)

// On Citus the workers render the completions an archive keeps, each in
// its own time zone unless the archive's says otherwise: an archive's
// times are UTC whatever the workers' zone.
func TestCitusArchiveTimesInUTC(t *testing.T) {
	dbtest.RequireCitus(t)
	t.Parallel()
	ctx := context.Background()
	const n = 20
	f := setup(t, ModeFiles, n, 3)
	for _, w := range dbtest.Workers(t, f.pool.Config().ConnString()) {
		conn, err := pgx.Connect(ctx, w.DSN)
		if err != nil {
			t.Fatal(err)
		}
		_, err = conn.Exec(ctx, "ALTER DATABASE "+pgx.Identifier{conn.Config().Database}.Sanitize()+" SET TimeZone = 'Asia/Tokyo'")
		conn.Close(ctx)
		if err != nil {
			t.Fatal(err)
		}
	}
	// New sessions, whose connections to the workers are new too.
	f.pool.Reset()

	if res, err := f.arc.Project(ctx, f.project, time.Now()); err != nil || res.Items != n {
		t.Fatalf("archived %+v, %v", res, err)
	}
	var out bytes.Buffer
	if got, err := f.arc.Export(ctx, &out, f.project); err != nil || got != n {
		t.Fatalf("exported %d, %v", got, err)
	}
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if !strings.Contains(line, `"done_at" : "`) || strings.Count(line, `+00:00"`) != 2 {
			t.Fatalf("a line with times not in UTC: %s", line)
		}
	}
}
