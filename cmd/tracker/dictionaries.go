package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"tracker/dictionaries"
	"tracker/projects"
)

// withDictionaries opens the database and finds the project for the
// dictionary commands.
func (a *app) withDictionaries(ctx context.Context, slug string, fn func(*dictionaries.Store, projects.Project) error) error {
	return a.withDatabase(ctx, func(d *database) error {
		p, err := projects.NewStore(d.pool).Get(ctx, slug)
		if err != nil {
			return err
		}
		return fn(dictionaries.NewStore(d.pool), p)
	})
}

// runDictionarySet installs FILE as the project's dictionary.
func runDictionarySet(ctx context.Context, a *app, args []string) error {
	b, err := os.ReadFile(args[1])
	if err != nil {
		return err
	}
	// Checked before the database is opened: a wrong file fails at once.
	if err := dictionaries.Validate(b); err != nil {
		return fmt.Errorf("%s: %w", args[1], err)
	}
	return a.installDictionary(ctx, args[0], b)
}

func (a *app) installDictionary(ctx context.Context, slug string, b []byte) error {
	return a.withDictionaries(ctx, slug, func(s *dictionaries.Store, p projects.Project) error {
		d, err := s.Add(ctx, p.ID, b, "")
		if err != nil {
			return err
		}
		printf(a, "dictionary %d installed for %s (%d bytes, sha256 %s)\n", d.ID, p.Slug, d.Size, d.SHA256)
		return nil
	})
}

// dictionaryJSON is a dictionary as `tracker dictionary list` prints it.
type dictionaryJSON struct {
	// ID is the ten-digit id the scripts name files with.
	ID int64 `json:"id"`
	// LegacyID is the id a dictionary installed before ids were Unix
	// seconds had then, which still names it.
	LegacyID  int64     `json:"legacy_id,omitempty"`
	SHA256    string    `json:"sha256"`
	Bytes     int       `json:"bytes"`
	CreatedAt time.Time `json:"created_at"`
	CreatedBy string    `json:"created_by"`
	Served    bool      `json:"served"`
}

// runDictionaryList prints the project's dictionaries as JSON, newest (the
// one served) first.
func runDictionaryList(ctx context.Context, a *app, args []string) error {
	return a.withDictionaries(ctx, args[0], func(s *dictionaries.Store, p projects.Project) error {
		ds, err := s.List(ctx, p.ID)
		if err != nil {
			return err
		}
		out := make([]dictionaryJSON, 0, len(ds))
		for i, d := range ds {
			out = append(out, dictionaryJSON{ID: d.ID, LegacyID: d.LegacyID, SHA256: d.SHA256, Bytes: d.Size, CreatedAt: d.CreatedAt.UTC(), CreatedBy: d.CreatedBy, Served: i == 0})
		}
		return printJSON(a, out)
	})
}

type dictionaryTrainOptions struct {
	MaxSize int    // --max-size
	Out     string // --out
}

// runDictionaryTrain builds a dictionary from sample files and installs it
// (or, with --out, only writes it).
func runDictionaryTrain(ctx context.Context, a *app, args []string, o dictionaryTrainOptions) error {
	if o.MaxSize < 1<<10 || o.MaxSize > dictionaries.MaxSize {
		return &usageError{fmt.Sprintf("--max-size %d: from 1024 to %d bytes", o.MaxSize, dictionaries.MaxSize)}
	}
	samples := make([][]byte, 0, len(args)-1)
	for _, name := range args[1:] {
		b, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		if len(b) > 0 {
			samples = append(samples, b)
		}
	}
	b, err := dictionaries.Train(samples, o.MaxSize)
	if err != nil {
		return err
	}
	if err := dictionaries.Validate(b); err != nil {
		return err
	}
	if o.Out != "" {
		if err := os.WriteFile(o.Out, b, 0o644); err != nil {
			return err
		}
		printf(a, "dictionary of %d bytes from %d samples written to %s\n", len(b), len(samples), o.Out)
		return nil
	}
	return a.installDictionary(ctx, args[0], b)
}
