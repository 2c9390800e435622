// Package archive moves old completions out of the hot tables: each UTC day
// of a project's completions becomes one gzip file of JSON lines (or, for
// projects too big to keep them, is discarded), recorded in the database
// with its item count, time range and checksum, and its partition is
// dropped whole.
package archive

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
	"tracker/db/drivers"
	"tracker/naming"
	"tracker/projects"
)

// Archive modes (the project configuration's archive_mode).
const (
	ModeFiles   = "files"
	ModeDiscard = "discard"
)

// ErrChecksum means an archive file is not what was written: it is reported,
// never read.
var ErrChecksum = errors.New("archive file fails its checksum")

// Archiver archives completions into files under its directory.
type Archiver struct {
	pool *pgxpool.Pool
	q    *db.Queries
	dir  string
	// dropLockTimeout bounds the wait for the lock that dropping a
	// partition takes on the project's completions: completions queue
	// behind it, so it is short, and the day is tried again next run.
	dropLockTimeout time.Duration
	// drv is the database's driver, asked once.
	drv drivers.Known
}

func New(pool *pgxpool.Pool, dir string) *Archiver {
	return &Archiver{pool: pool, q: db.Of(pool), dir: dir, dropLockTimeout: time.Second}
}

// Result says what one pass archived.
type Result struct {
	Days  int
	Items int64
}

// Project archives every day of the project's completions that ended
// archive_after seconds or more before now. Each day is one transaction:
// stopped midway, a pass leaves whole days archived and the rest as they
// were (a file written for a day not yet recorded is written again).
//
// Where done's partitions are days every project shares (db.Driver's
// DoneByDay: Citus, see db.CitusLayout), the project's completions are
// deleted from a day rather than the partition dropped, and the days it
// holds none of are passed over; DropEmptyDays drops the days nobody's
// completions are left in.
func (a *Archiver) Project(ctx context.Context, p projects.Project, now time.Time) (Result, error) {
	var res Result
	if p.Config.ArchiveAfter <= 0 {
		return res, nil
	}
	cutoff := now.Add(-time.Duration(p.Config.ArchiveAfter) * time.Second)
	d, err := a.drv.Of(ctx, a.q.DB())
	if err != nil {
		return res, err
	}
	shared := d.DoneByDay()
	var parts []string
	if shared {
		parts, err = a.q.DoneDayPartitions(ctx)
	} else {
		parts, err = a.q.DonePartitions(ctx, p.ID)
	}
	if err != nil {
		return res, err
	}
	// Where an archived item may still be queued: its parameters stay
	// then (see archiveDay).
	sum, err := projects.SummaryOf(ctx, a.q, p)
	if err != nil {
		return res, err
	}
	held := holding{queues: naming.QueueNames(sum.Queues), types: p.Config.Stretches()}
	for _, part := range parts {
		day, err := partitionDay(part)
		if err != nil {
			return res, err
		}
		if day.AddDate(0, 0, 1).After(cutoff) {
			break // partitions come oldest first
		}
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if shared {
			if holds, err := db.DonePartitionHolds(ctx, a.pool, part, p.ID); err != nil {
				return res, fmt.Errorf("archiving %s: %w", part, err)
			} else if !holds {
				continue
			}
		}
		n, err := a.archiveDay(ctx, p, part, day, held, shared)
		if err != nil {
			return res, fmt.Errorf("archiving %s: %w", part, err)
		}
		res.Days++
		res.Items += n
	}
	return res, nil
}

// partitionDay reads the day from a partition's name (done_pN_YYYYMMDD, or
// done_YYYYMMDD on Citus).
func partitionDay(part string) (time.Time, error) {
	i := strings.LastIndexByte(part, '_')
	day, err := time.Parse("20060102", part[i+1:])
	if err != nil {
		return time.Time{}, fmt.Errorf("partition %q: %w", part, err)
	}
	return day, nil
}

// manifest is what the archives table records of a day.
type manifest struct {
	items, bytes        int64
	firstDone, lastDone *time.Time
	sum                 []byte
	size                int64
	path                string
}

// holding is where a project's items may be queued: the queues and the
// stretches of each.
type holding struct {
	queues, types []string
}

// archiveDay archives the project's completions in the day partition part
// of day, and drops the partition, or, shared by every project (Citus),
// deletes the project's completions from it.
func (a *Archiver) archiveDay(ctx context.Context, p projects.Project, part string, day time.Time, held holding, shared bool) (int64, error) {
	var m manifest
	var err error
	if p.Config.ArchiveMode == ModeDiscard {
		m, err = a.measure(ctx, p, part)
	} else {
		m, err = a.writeFile(ctx, p, part, day, shared)
	}
	if err != nil {
		return 0, err
	}
	err = pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		// A past day's partition takes no more rows (done_at is the
		// completion's own time), but check before dropping anything.
		n, err := db.DonePartitionCount(ctx, tx, part, p.ID)
		if err != nil {
			return err
		}
		if n != m.items {
			return fmt.Errorf("%s holds %d completions, the archive %d", part, n, m.items)
		}
		if n == 0 && shared {
			return nil
		}
		if n == 0 {
			return db.DonePartitionDrop(ctx, tx, part)
		}
		q := db.Of(tx)
		mode := ModeFiles
		if m.path == "" {
			mode = ModeDiscard
		}
		id, err := q.ArchiveInsert(ctx, db.ArchiveInsertParams{
			ProjectID: p.ID, Day: day, Mode: mode, Path: m.path, Items: m.items, Bytes: m.bytes,
			FirstDoneAt: m.firstDone, LastDoneAt: m.lastDone, Sha256: m.sum, FileSize: m.size,
		})
		if err != nil {
			return err
		}
		counter := "discarded"
		if mode == ModeFiles {
			counter = "archived"
			if err := db.DonePartitionArchivedInsert(ctx, tx, part, p.ID, id); err != nil {
				return err
			}
		}
		if err := q.CountersAdd(ctx, db.CountersAddParams{ProjectID: p.ID, Names: []string{counter}, Deltas: []int64{n}}); err != nil {
			return err
		}
		// The parameters and scores of the items the day completed leave
		// with it, but for items the tracker still holds (queued again,
		// out, scheduled for their next visit, or completed on a later
		// day).
		if _, err := db.DonePartitionItemsPrune(ctx, tx, part, p.ID, held.queues, held.types, day); err != nil {
			return err
		}
		if err := q.TransactionLockTimeout(ctx, a.dropLockTimeout.Milliseconds()); err != nil {
			return err
		}
		// The items' upload receipts go with their completions. The lock
		// comes first: a receipt taken meanwhile, while its item was
		// still found done here, is committed before the delete reads.
		// On Citus the partition is every project's: the lock holds
		// their reads of it (lookups, receipts) until the project's
		// completions are deleted and the transaction ends.
		if err := db.DonePartitionLock(ctx, tx, part); err != nil {
			return err
		}
		if _, err := db.DonePartitionUploadsDelete(ctx, tx, part, p.ID, day.AddDate(0, 0, 1)); err != nil {
			return err
		}
		if shared {
			if deleted, err := db.DonePartitionDelete(ctx, tx, part, p.ID); err != nil {
				return err
			} else if deleted != n {
				return fmt.Errorf("%s: %d completions deleted, %d archived", part, deleted, n)
			}
			return nil
		}
		return db.DonePartitionDrop(ctx, tx, part)
	})
	return m.items, err
}

// DropEmptyDays drops the day partitions every project shares (Citus's:
// see Project) that no completion is left in, archived or never made,
// before yesterday: a completion takes its own time, so a day over takes
// no more, and yesterday's and the days ahead are kept as
// projects.Store.EnsurePartitions makes them. A day that a statement reads
// at the time is left for the next pass. It returns how many it dropped:
// none on plain PostgreSQL, where Project drops each project's days.
func (a *Archiver) DropEmptyDays(ctx context.Context, now time.Time) (int, error) {
	parts, err := a.q.DoneDayPartitions(ctx)
	if err != nil {
		return 0, err
	}
	before := now.UTC().Truncate(24*time.Hour).AddDate(0, 0, -1)
	dropped := 0
	for _, part := range parts {
		day, err := partitionDay(part)
		if err != nil {
			return dropped, err
		}
		if !day.Before(before) {
			break // partitions come oldest first
		}
		if err := ctx.Err(); err != nil {
			return dropped, err
		}
		// Looked at unlocked first: a day that holds completions is not
		// held up at all.
		if empty, err := db.DonePartitionEmpty(ctx, a.pool, part); err != nil || !empty {
			if err != nil {
				return dropped, fmt.Errorf("%s: %w", part, err)
			}
			continue
		}
		gone := false
		err = pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
			if err := db.Of(tx).TransactionLockTimeout(ctx, a.dropLockTimeout.Milliseconds()); err != nil {
				return err
			}
			if err := db.DonePartitionLock(ctx, tx, part); err != nil {
				return err
			}
			if empty, err := db.DonePartitionEmpty(ctx, tx, part); err != nil || !empty {
				return err
			}
			gone = true
			return db.DonePartitionDrop(ctx, tx, part)
		})
		// 55P03 lock_not_available: the lock timed out.
		if pgErr := (*pgconn.PgError)(nil); errors.As(err, &pgErr) && pgErr.Code == "55P03" {
			continue
		}
		if err != nil {
			return dropped, fmt.Errorf("%s: %w", part, err)
		}
		if gone {
			dropped++
		}
	}
	return dropped, nil
}

// measure counts the project's completions in a partition for a
// discarding archive.
func (a *Archiver) measure(ctx context.Context, p projects.Project, part string) (manifest, error) {
	t, err := db.DonePartitionTotals(ctx, a.pool, part, p.ID)
	return manifest{items: t.Items, bytes: t.Bytes, firstDone: t.FirstDoneAt, lastDone: t.LastDoneAt}, err
}

// writeFile writes the project's completions in a partition to their
// archive file: to a temporary name first, synced, then renamed, so a file
// under its final name is always whole.
func (a *Archiver) writeFile(ctx context.Context, p projects.Project, part string, day time.Time, shared bool) (manifest, error) {
	m := manifest{path: filepath.Join(p.Slug, fmt.Sprintf("%s-%s.jsonl.gz", p.Slug, day.Format("2006-01-02")))}
	final := filepath.Join(a.dir, m.path)
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return m, err
	}
	f, err := os.CreateTemp(filepath.Dir(final), ".archive-*")
	if err != nil {
		return m, err
	}
	defer os.Remove(f.Name()) // fails harmlessly once renamed
	defer f.Close()

	sum := sha256.New()
	counted := &countingWriter{w: io.MultiWriter(f, sum)}
	buf := bufio.NewWriterSize(counted, 1<<16)
	zw := gzip.NewWriter(buf)

	err = pgx.BeginTxFunc(ctx, a.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		// Times are UTC, so a file reads the same whoever wrote it. On
		// Citus the worker renders them, in its own zone unless told.
		q := db.Of(tx)
		if shared {
			if err := q.TransactionSetsPropagated(ctx); err != nil {
				return err
			}
		}
		if err := q.TransactionTimeZoneUTC(ctx); err != nil {
			return err
		}
		return db.DonePartitionRecords(ctx, tx, part, p.ID, func(line string, bytes int64, doneAt time.Time) error {
			if m.firstDone == nil {
				first := doneAt
				m.firstDone = &first
			}
			last := doneAt
			m.lastDone = &last
			m.items++
			m.bytes = db.AddBytes(m.bytes, bytes)
			_, err := io.WriteString(zw, line+"\n")
			return err
		})
	})
	if err != nil {
		return m, err
	}
	if m.items == 0 {
		return m, nil // an empty day leaves no file
	}
	if err := zw.Close(); err != nil {
		return m, err
	}
	if err := buf.Flush(); err != nil {
		return m, err
	}
	if err := f.Sync(); err != nil {
		return m, err
	}
	if err := f.Close(); err != nil {
		return m, err
	}
	if err := os.Rename(f.Name(), final); err != nil {
		return m, err
	}
	if err := syncDir(filepath.Dir(final)); err != nil {
		return m, err
	}
	m.sum, m.size = sum.Sum(nil), counted.n
	return m, nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// List returns the project's archives, oldest day first.
func (a *Archiver) List(ctx context.Context, p projects.Project) ([]db.Archive, error) {
	return a.q.ArchivesByProject(ctx, p.ID)
}

// Verify checks an archive's file against its recorded size and checksum.
func (a *Archiver) Verify(arc db.Archive) error {
	if arc.Mode != ModeFiles {
		return nil
	}
	f, err := os.Open(filepath.Join(a.dir, arc.Path))
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return err
	}
	return checkSum(arc, n, h)
}

func checkSum(arc db.Archive, size int64, h hash.Hash) error {
	if size != arc.FileSize || string(h.Sum(nil)) != string(arc.Sha256) {
		return fmt.Errorf("%w: %s (recorded %d bytes, sha256 %x; found %d bytes, sha256 %x)",
			ErrChecksum, arc.Path, arc.FileSize, arc.Sha256, size, h.Sum(nil))
	}
	return nil
}

// Export writes the project's archived completions to w as JSON lines, day
// by day, exactly as archived. Each file is checked against its checksum
// before a line of it is written; the first that fails stops the export
// with ErrChecksum. Discarded days have nothing to export. It returns how
// many completions it wrote.
func (a *Archiver) Export(ctx context.Context, w io.Writer, p projects.Project) (int64, error) {
	arcs, err := a.List(ctx, p)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, arc := range arcs {
		if arc.Mode != ModeFiles {
			continue
		}
		if err := ctx.Err(); err != nil {
			return total, err
		}
		if err := a.Verify(arc); err != nil {
			return total, err
		}
		n, err := a.copyFile(w, arc)
		total += n
		if err != nil {
			return total, err
		}
		if n != arc.Items {
			return total, fmt.Errorf("%s: %d completions, %d recorded", arc.Path, n, arc.Items)
		}
	}
	return total, nil
}

// copyFile decompresses one archive file into w and counts its lines.
func (a *Archiver) copyFile(w io.Writer, arc db.Archive) (int64, error) {
	f, err := os.Open(filepath.Join(a.dir, arc.Path))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return 0, fmt.Errorf("%s: %w", arc.Path, err)
	}
	lines := &lineCounter{w: w}
	if _, err := io.Copy(lines, zr); err != nil {
		return lines.n, fmt.Errorf("%s: %w", arc.Path, err)
	}
	return lines.n, nil
}

type lineCounter struct {
	w io.Writer
	n int64
}

func (l *lineCounter) Write(p []byte) (int, error) {
	for _, b := range p {
		if b == '\n' {
			l.n++
		}
	}
	return l.w.Write(p)
}
