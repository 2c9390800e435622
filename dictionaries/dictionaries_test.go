package dictionaries_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"testing"

	"github.com/klauspost/compress/zstd"

	"tracker/db/dbtest"
	"tracker/dictionaries"
	"tracker/refusal"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// samples are pages alike in their markup and different in their text, as
// the records of one site are.
func samples() [][]byte {
	var out [][]byte
	for i := range 60 {
		out = append(out, fmt.Appendf(nil, `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Post %d - Example Forum</title>`+
			`<link rel="stylesheet" href="/static/forum.css"></head><body><div class="header"><a href="/">Example Forum</a> | <a href="/login">Sign in</a></div>`+
			`<div class="post" id="post-%d"><span class="author">user%d</span><span class="date">2026-11-%02d</span><p>Message number %d says %x.</p></div>`+
			`<div class="footer">Powered by ExampleBoard 2.3 &middot; <a href="/terms">Terms</a> &middot; <a href="/privacy">Privacy</a></div></body></html>`,
			i, i, i*7, i%28+1, i, i*2654435761))
	}
	return out
}

func compress(t *testing.T, b []byte, opts ...zstd.EOption) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(b, nil)
}

func TestTrainAndValidate(t *testing.T) {
	t.Parallel()
	d, err := dictionaries.Train(samples(), 16<<10)
	if err != nil {
		t.Fatal(err)
	}
	if err := dictionaries.Validate(d); err != nil {
		t.Fatalf("trained dictionary refused: %v", err)
	}
	if err := dictionaries.Validate(compress(t, d)); err != nil {
		t.Fatalf("compressed dictionary refused: %v", err)
	}
	// The dictionary works: a page compresses smaller with it and comes
	// back whole.
	page := samples()[7]
	with, without := compress(t, page, zstd.WithEncoderDict(d)), compress(t, page)
	if len(with) >= len(without) {
		t.Errorf("%d bytes with the dictionary, %d without", len(with), len(without))
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderDicts(d))
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	if back, err := dec.DecodeAll(with, nil); err != nil || !bytes.Equal(back, page) {
		t.Fatalf("round trip: %v", err)
	}

	for name, b := range map[string][]byte{
		"empty":                  nil,
		"text":                   []byte("not a dictionary at all"),
		"compressed text":        compress(t, []byte("not a dictionary at all")),
		"magic only":             {0x37, 0xA4, 0x30, 0xEC},
		"broken frame":           {0x28, 0xB5, 0x2F, 0xFD, 1, 2, 3},
		"dictionary, cut short":  d[:40],
		"frame magic then magic": append([]byte{0x28, 0xB5, 0x2F, 0xFD}, d...),
	} {
		if err := dictionaries.Validate(b); !refusal.IsInvalid(err) {
			t.Errorf("%s: Validate = %v, want it refused as invalid", name, err)
		}
	}
	if _, err := dictionaries.Train(nil, 0); err == nil {
		t.Error("trained from no samples")
	}
}

func TestStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	p := dbtest.Project(t, pool, "test", "")
	s := dictionaries.NewStore(pool)
	if _, err := s.Latest(ctx, p.ID); !errors.Is(err, dictionaries.ErrNone) {
		t.Fatalf("Latest of a project without one: %v", err)
	}
	d, err := dictionaries.Train(samples(), 8<<10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(ctx, p.ID, []byte("nope"), "root"); !refusal.IsInvalid(err) {
		t.Fatalf("Add of garbage: %v", err)
	}
	first, err := s.Add(ctx, p.ID, d, "root")
	if err != nil {
		t.Fatal(err)
	}
	packed := compress(t, d)
	second, err := s.Add(ctx, p.ID, packed, "")
	if err != nil {
		t.Fatal(err)
	}
	if second.ID <= first.ID {
		t.Fatalf("ids %d then %d", first.ID, second.ID)
	}
	if latest, err := s.Latest(ctx, p.ID); err != nil || latest.ID != second.ID {
		t.Fatalf("Latest = %+v, %v; want %d", latest, err, second.ID)
	}
	list, err := s.List(ctx, p.ID)
	if err != nil || len(list) != 2 || list[0].ID != second.ID || list[1].CreatedBy != "root" || list[0].Size != len(packed) {
		t.Fatalf("List = %+v, %v", list, err)
	}
	got, slug, err := s.Meta(ctx, second.ID)
	sum := sha256.Sum256(packed)
	if err != nil || slug != p.Slug || got.SHA256 != hex.EncodeToString(sum[:]) || got.Size != len(packed) ||
		got.Token != second.Token || len(got.Token) < 32 || got.Token == first.Token {
		t.Fatalf("Meta: %+v %q, %v; want the token %q", got, slug, err, second.Token)
	}
	if _, _, err := s.Meta(ctx, second.ID+100); !errors.Is(err, dictionaries.ErrNotFound) {
		t.Fatalf("Meta of a missing id: %v", err)
	}
	b, err := s.Bytes(ctx, second.ID)
	if err != nil || !bytes.Equal(b, packed) {
		t.Fatalf("Bytes: %v, %d bytes", err, len(b))
	}
	if _, err := s.Bytes(ctx, second.ID+100); !errors.Is(err, dictionaries.ErrNotFound) {
		t.Fatalf("Bytes of a missing id: %v", err)
	}
}
