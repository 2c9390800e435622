// Command schemadump writes db/schema.sql: the schema the migrations make,
// as pg_dump --schema-only prints it, so a reader sees today's tables,
// indexes and functions in one file instead of reading them out of every
// migration that touched them. It migrates a throwaway cluster, dumps it,
// and takes out what differs from run to run (pg_dump's version lines,
// its session settings, the random key of its \restrict lines).
// The output is committed, as the code sqlc makes is.
//
//	go run ./cmd/schemadump -out db/schema.sql
//
// With -check, it writes nothing and fails when the file is not what it
// would write.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"tracker/db"
	"tracker/pgcluster"
)

func main() {
	out := flag.String("out", "db/schema.sql", "the file to write")
	check := flag.Bool("check", false, "write nothing; fail when the file is stale")
	flag.Parse()
	log.SetFlags(0)
	schema, err := dump(context.Background())
	if err != nil {
		log.Fatalf("schemadump: %v", err)
	}
	if *check {
		have, err := os.ReadFile(*out)
		if err != nil || !bytes.Equal(have, schema) {
			log.Fatalf("%s is stale: run 'make generate' and commit", *out)
		}
		return
	}
	if err := os.WriteFile(*out, schema, 0o644); err != nil {
		log.Fatal(err)
	}
}

// dump migrates a fresh cluster and returns its schema, normalised.
func dump(ctx context.Context) ([]byte, error) {
	dir, err := os.MkdirTemp("", "schemadump-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	// PostgreSQL's own account must reach the cluster when run as root.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	c, err := pgcluster.Acquire(ctx, filepath.Join(dir, "data"), pgcluster.Options{})
	if err != nil {
		return nil, err
	}
	defer c.Release(context.Background())
	pool, err := db.Open(ctx, c.DSN())
	if err != nil {
		return nil, err
	}
	_, err = db.MigrateUp(pool)
	pool.Close()
	if err != nil {
		return nil, fmt.Errorf("migrating: %w", err)
	}
	bins, err := pgcluster.FindBinaries()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(filepath.Join(filepath.Dir(bins.PgCtl), "pg_dump"), "--schema-only", "--no-owner", "--no-privileges",
		// The migrations' own bookkeeping. (done's partitions are made per
		// project, and a fresh schema has none.)
		"--exclude-table=schema_migrations", "--dbname", c.DSN())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("pg_dump: %v: %s", err, stderr.String())
	}
	return normalise(raw, bins.Version), nil
}

var (
	// pg_dump's lines that say by what it ran, the session settings it
	// opens with, and the lines that fence psql's meta-commands out with a
	// key made anew each run: the same schema dumps the same file.
	noise = regexp.MustCompile(`(?m)^(-- Dumped (from database|by pg_dump) version .*|SET .*|SELECT pg_catalog\.set_config\('search_path'.*|\\(un)?restrict .*)\n`)
	// runs of blank lines, one.
	blanks = regexp.MustCompile(`\n{3,}`)
)

func normalise(raw []byte, major int) []byte {
	s := noise.ReplaceAllString(string(raw), "")
	s = blanks.ReplaceAllString(s, "\n\n")
	head := fmt.Sprintf("-- The tracker's schema as the migrations leave it (PostgreSQL %d), made by\n"+
		"-- cmd/schemadump (make generate). Read it; change the schema with a migration.\n", major)
	return []byte(head + strings.TrimLeft(s, "\n"))
}
