package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"tracker/db"
	"tracker/items"
	"tracker/projects"
	"tracker/users"
)

func runMigrate(ctx context.Context, a *app, _ []string, _ map[string]*string) error {
	// openDatabase migrates; this command only reports where that left it.
	return a.withDatabase(ctx, func(d *database) error {
		v, dirty, err := db.SchemaVersion(d.pool)
		if err != nil {
			return err
		}
		if dirty {
			return fmt.Errorf("schema version %d is dirty: a migration failed half-way; repair it by hand", v)
		}
		printf(a, "schema at version %d\n", v)
		return nil
	})
}

func runProjectCreate(ctx context.Context, a *app, args []string, opts map[string]*string) error {
	if err := projects.ValidSlug(args[0]); err != nil {
		return &usageError{err.Error()}
	}
	return a.withDatabase(ctx, func(d *database) error {
		store := projects.NewStore(d.pool)
		p, err := store.Create(ctx, args[0], *opts["title"])
		if err != nil {
			return err
		}
		return printProject(ctx, a, store, p)
	})
}

func runProjectShow(ctx context.Context, a *app, args []string, _ map[string]*string) error {
	return a.withDatabase(ctx, func(d *database) error {
		store := projects.NewStore(d.pool)
		p, err := store.Get(ctx, args[0])
		if err != nil {
			return err
		}
		return printProject(ctx, a, store, p)
	})
}

// projectJSON is the document `project show` prints; scripts read it.
type projectJSON struct {
	Slug   string           `json:"slug"`
	Title  string           `json:"title"`
	Config projects.Config  `json:"config"`
	Queues map[string]int64 `json:"queues"`
	Claims int64            `json:"claims"`
	Done   int64            `json:"done"`
}

func printProject(ctx context.Context, a *app, store *projects.Store, p projects.Project) error {
	sum, err := store.Summary(ctx, p)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(projectJSON{
		Slug: p.Slug, Title: p.Title, Config: p.Config,
		Queues: sum.Queues, Claims: sum.Claims, Done: sum.Done,
	}, "", "  ")
	if err != nil {
		return err
	}
	printf(a, "%s\n", b)
	return nil
}

func runItemsAdd(ctx context.Context, a *app, args []string, opts map[string]*string) error {
	queue := *opts["queue"]
	if err := items.ValidQueue(queue); err != nil {
		return &usageError{err.Error()}
	}
	in := a.io.in
	if len(args) == 2 && args[1] != "-" {
		f, err := os.Open(args[1])
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	return a.withDatabase(ctx, func(d *database) error {
		p, err := projects.NewStore(d.pool).Get(ctx, args[0])
		if err != nil {
			return err
		}
		res, err := items.NewEngine(d.pool).Add(ctx, p.ID, queue, in)
		summary := fmt.Sprintf("added %d, skipped %d", res.Added, res.Skipped)
		if res.Invalid > 0 {
			summary += fmt.Sprintf(", invalid %d", res.Invalid)
		}
		printf(a, "%s\n", summary)
		for _, line := range res.InvalidLines {
			fmt.Fprintf(a.io.err, "tracker: %s\n", line)
		}
		if err != nil {
			return fmt.Errorf("import stopped (the batches before were committed; run it again to add the rest): %w", err)
		}
		if res.Invalid > 0 {
			return fmt.Errorf("%d lines were not valid item names and were left out", res.Invalid)
		}
		return nil
	})
}

func runAdminCreate(ctx context.Context, a *app, args []string, _ map[string]*string) error {
	password := a.getenv("TRACKER_PASSWORD")
	if password == "" {
		var err error
		if password, err = readLine(a.io.in); err != nil {
			return fmt.Errorf("reading the password from stdin: %w", err)
		}
	}
	return a.withDatabase(ctx, func(d *database) error {
		u, err := users.NewStore(d.pool).Create(ctx, args[0], password, users.RoleAdmin)
		if err != nil {
			return err
		}
		printf(a, "created admin %s\n", u.Username)
		return nil
	})
}

// readLine reads one line, without its line ending.
func readLine(r io.Reader) (string, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !(errors.Is(err, io.EOF) && line != "") {
		if errors.Is(err, io.EOF) {
			return "", errors.New("no password given: set $TRACKER_PASSWORD or write it on stdin")
		}
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}
