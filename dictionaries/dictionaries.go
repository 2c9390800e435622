// Package dictionaries keeps each project's zstd dictionaries: the ones grab
// scripts fetch through GET /dictionary and compress their WARCs with
// (docs/PROTOCOL.md, "GET /dictionary").
package dictionaries

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/klauspost/compress/dict"
	"github.com/klauspost/compress/zstd"

	"tracker/audit"
	"tracker/db"
	"tracker/refusal"
)

// MaxSize bounds a dictionary, as uploaded and once decompressed. zstd's
// own trainer makes 110 KB by default; a few MiB is already far past any
// gain, and every warrior downloads it.
const MaxSize = 16 << 20

var (
	// frameMagic starts a zstd frame: the upload is a compressed
	// dictionary, which the scripts decompress after download.
	frameMagic = []byte{0x28, 0xB5, 0x2F, 0xFD}
	// dictMagic starts a zstd dictionary.
	dictMagic = []byte{0x37, 0xA4, 0x30, 0xEC}
)

// ErrNone is the answer for a project without a dictionary.
var ErrNone = errors.New("no dictionary")

// ErrNotFound is the answer for an id no dictionary has.
var ErrNotFound = refusal.New(refusal.NotFound, "unknown-dictionary", errors.New("no such dictionary"))

// invalid says why bytes are not a dictionary the scripts can use.
func invalid(why string) error {
	return refusal.Invalidf("invalid-dictionary", "not a zstd dictionary: %s", why)
}

// Dictionary is one upload, without its bytes.
type Dictionary struct {
	// ID is the Unix second the dictionary was installed, or the second
	// after the newest id when that one was taken: ten digits, distinct,
	// in the order dictionaries were installed. Grab scripts name their
	// files with it and the staging servers' packer reads it back
	// (docs/PROTOCOL.md, "GET /dictionary").
	ID int64
	// LegacyID is the id a dictionary installed before ids were Unix
	// seconds had then (they counted up from 1), which still names it;
	// 0 for those installed since.
	LegacyID  int64
	ProjectID int32
	// SHA256 is the hex SHA-256 of the bytes as uploaded and served.
	SHA256 string
	// Token is a random string that goes into the dictionary's address
	// with its id: ids are seconds, easily guessed, and a hidden project's
	// dictionaries are served only to those given the token.
	Token     string
	Size      int
	CreatedAt time.Time
	// CreatedBy is the admin who uploaded it; empty from the shell.
	CreatedBy string
}

// Validate says why b cannot be served as a dictionary, or returns nil.
// The scripts decompress b when it is a zstd frame and hand the result to
// zstd as a dictionary: that result must start with the dictionary magic
// and load as one.
func Validate(b []byte) error {
	if len(b) > MaxSize {
		return invalid(fmt.Sprintf("%d bytes, more than %d", len(b), MaxSize))
	}
	raw := b
	if bytes.HasPrefix(b, frameMagic) {
		dec, err := zstd.NewReader(bytes.NewReader(b), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxSize+1))
		if err != nil {
			return err
		}
		defer dec.Close()
		raw, err = io.ReadAll(io.LimitReader(dec, MaxSize+1))
		if err != nil {
			return invalid("the zstd frame does not decompress: " + err.Error())
		}
		if len(raw) > MaxSize {
			return invalid(fmt.Sprintf("more than %d bytes decompressed", MaxSize))
		}
	}
	if !bytes.HasPrefix(raw, dictMagic) {
		what := "the file"
		if len(raw) != len(b) || !bytes.Equal(raw, b) {
			what = "the decompressed file"
		}
		return invalid(what + " does not start with the dictionary magic 37 A4 30 EC")
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderDicts(raw))
	if err != nil {
		return invalid(err.Error())
	}
	dec.Close()
	return nil
}

// Train builds a dictionary from sample files of what the scripts will
// compress, with klauspost/compress's builder (which writes the dictionary
// with zstd.BuildDict). It is made compatible with zstd 1.5.5 and older:
// the warriors' zstd is whatever their image ships.
func Train(samples [][]byte, maxSize int) ([]byte, error) {
	if maxSize <= 0 {
		maxSize = 110 << 10
	}
	if len(samples) == 0 {
		return nil, errors.New("no samples")
	}
	b, err := dict.BuildZstdDict(samples, dict.Options{
		MaxDictSize: maxSize, HashBytes: 6, ZstdDictCompat: true, ZstdLevel: zstd.SpeedBestCompression,
	})
	if err != nil {
		return nil, fmt.Errorf("training the dictionary: %w", err)
	}
	return b, nil
}

// Store reads and writes dictionaries.
type Store struct {
	pool *pgxpool.Pool
	q    *db.Queries
}

func NewStore(pool *pgxpool.Pool) *Store { return &Store{pool: pool, q: db.Of(pool)} }

// Add validates b and installs it as the project's newest dictionary, the
// one served, under a new id: the Unix second it is installed, or the
// second after the newest id when that one is taken. by is the account
// that installed it ("" from the shell); the audit log records it.
func (s *Store) Add(ctx context.Context, projectID int32, b []byte, by string) (Dictionary, error) {
	if err := Validate(b); err != nil {
		return Dictionary{}, err
	}
	sum := sha256.Sum256(b)
	var r db.DictionaryInsertRow
	err := db.WithTx(ctx, s.pool, func(q *db.Queries) error {
		if err := q.DictionaryInsertLock(ctx); err != nil {
			return err
		}
		var err error
		r, err = q.DictionaryInsert(ctx, db.DictionaryInsertParams{ProjectID: projectID, Bytes: b, Sha256: hex.EncodeToString(sum[:]), CreatedBy: by})
		if err != nil {
			return err
		}
		return audit.Record(ctx, q, "dictionary.set", projectID, map[string]any{"id": r.ID, "sha256": r.Sha256, "bytes": r.Size})
	})
	if err != nil {
		return Dictionary{}, err
	}
	return fromRow(db.DictionaryLatestRow(r)), nil
}

// fromRow is a dictionary as a statement read it.
func fromRow(r db.DictionaryLatestRow) Dictionary {
	return Dictionary{ID: r.ID, LegacyID: r.LegacyID, ProjectID: r.ProjectID, SHA256: r.Sha256, Token: r.Token, Size: int(r.Size), CreatedAt: r.CreatedAt, CreatedBy: r.CreatedBy}
}

// Latest is the project's newest dictionary, the one served; ErrNone when
// it has none.
func (s *Store) Latest(ctx context.Context, projectID int32) (Dictionary, error) {
	r, err := s.q.DictionaryLatest(ctx, projectID)
	if errors.Is(err, pgx.ErrNoRows) {
		return Dictionary{}, ErrNone
	}
	if err != nil {
		return Dictionary{}, err
	}
	return fromRow(r), nil
}

// Of is the project's dictionary of id id, or of old id id (LegacyID);
// ErrNotFound when the project never had it.
func (s *Store) Of(ctx context.Context, projectID int32, id int64) (Dictionary, error) {
	r, err := s.q.DictionaryOfProject(ctx, db.DictionaryOfProjectParams{ProjectID: projectID, ID: id})
	if errors.Is(err, pgx.ErrNoRows) {
		return Dictionary{}, ErrNotFound
	}
	if err != nil {
		return Dictionary{}, err
	}
	return fromRow(db.DictionaryLatestRow(r)), nil
}

// List is every dictionary of the project, newest first.
func (s *Store) List(ctx context.Context, projectID int32) ([]Dictionary, error) {
	rows, err := s.q.DictionariesForProject(ctx, projectID)
	if err != nil {
		return nil, err
	}
	out := make([]Dictionary, 0, len(rows))
	for _, r := range rows {
		out = append(out, fromRow(db.DictionaryLatestRow(r)))
	}
	return out, nil
}

// Meta is a dictionary by id or old id without its bytes, with its
// project's slug; ErrNotFound when there is none. It reads no more than a
// row's head: enough to answer a conditional request or refuse one.
func (s *Store) Meta(ctx context.Context, id int64) (Dictionary, string, error) {
	r, err := s.q.DictionaryMeta(ctx, id)
	if errors.Is(err, pgx.ErrNoRows) {
		return Dictionary{}, "", ErrNotFound
	}
	if err != nil {
		return Dictionary{}, "", err
	}
	return Dictionary{ID: r.ID, LegacyID: r.LegacyID, ProjectID: r.ProjectID, SHA256: r.Sha256, Token: r.Token, Size: int(r.Size)}, r.Slug, nil
}

// Bytes are the bytes of the dictionary of id id (not an old id), up to
// MaxSize; ErrNotFound when there is none.
func (s *Store) Bytes(ctx context.Context, id int64) ([]byte, error) {
	b, err := s.q.DictionaryBytes(ctx, id)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	return b, err
}
