package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"golang.org/x/term"

	"tracker/books"
	"tracker/db"
	"tracker/items"
	"tracker/naming"
	"tracker/projects"
	"tracker/users"
)

func runMigrate(ctx context.Context, a *app, _ []string) error {
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

type projectCreateOptions struct {
	Title string // --title
}

func runProjectCreate(ctx context.Context, a *app, args []string, o projectCreateOptions) error {
	if err := projects.ValidSlug(args[0]); err != nil {
		return &usageError{err.Error()}
	}
	return a.withDatabase(ctx, func(d *database) error {
		store := projects.NewStore(d.pool)
		p, err := store.Create(ctx, args[0], o.Title)
		if err != nil {
			return err
		}
		return printProject(ctx, a, store, p)
	})
}

func runProjectShow(ctx context.Context, a *app, args []string) error {
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
	// Done counts every completion, archived and discarded ones included.
	Done      int64 `json:"done"`
	Bytes     int64 `json:"bytes"`
	Reclaims  int64 `json:"reclaims"`
	Archived  int64 `json:"archived"`
	Discarded int64 `json:"discarded"`
}

func printProject(ctx context.Context, a *app, store *projects.Store, p projects.Project) error {
	sum, err := store.Summary(ctx, p)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(projectJSON{
		Slug: p.Slug, Title: p.Title, Config: p.Config,
		Queues: sum.Queues, Claims: sum.Claims, Done: sum.Done,
		Bytes: sum.Bytes, Reclaims: sum.Reclaims, Archived: sum.Archived, Discarded: sum.Discarded,
	}, "", "  ")
	if err != nil {
		return err
	}
	printf(a, "%s\n", b)
	return nil
}

func runProjectSet(ctx context.Context, a *app, args []string) error {
	return a.withDatabase(ctx, func(d *database) error {
		store := projects.NewStore(d.pool)
		p, err := store.Get(ctx, args[0])
		if err != nil {
			return err
		}
		if p, err = store.Set(ctx, p, args[1:]); err != nil {
			return err
		}
		return printProject(ctx, a, store, p)
	})
}

// blockOptions are the flags of block add; block remove has none.
type blockOptions struct {
	Reason string // --reason
}

// runBlock adds or removes a block: tracker block add|remove SLUG|all nick|ip VALUE.
func runBlock(add bool) func(context.Context, *app, []string, blockOptions) error {
	return func(ctx context.Context, a *app, args []string, o blockOptions) error {
		b, err := projects.ParseBlock(args[1], args[2])
		if err != nil {
			return &usageError{err.Error()}
		}
		b.Reason = o.Reason
		return a.withDatabase(ctx, func(d *database) error {
			store := projects.NewStore(d.pool)
			scope := "every project"
			if args[0] != "all" {
				p, err := store.Get(ctx, args[0])
				if err != nil {
					return err
				}
				b.ProjectID, scope = &p.ID, p.Slug
			}
			if add {
				if err := store.AddBlock(ctx, b); err != nil {
					return err
				}
				printf(a, "blocked %s %s on %s\n", b.Kind, b.Value, scope)
				return nil
			}
			found, err := store.RemoveBlock(ctx, b)
			if err != nil {
				return err
			}
			if !found {
				return fmt.Errorf("no block of %s %s on %s", b.Kind, b.Value, scope)
			}
			printf(a, "unblocked %s %s on %s\n", b.Kind, b.Value, scope)
			return nil
		})
	}
}

type targetAddOptions struct {
	Weight   int  // --weight
	Disabled bool // --disabled
}

// runTargetAdd adds an upload target, or changes its weight and switch.
func runTargetAdd(ctx context.Context, a *app, args []string, o targetAddOptions) error {
	if err := projects.ValidTargetURL(args[1]); err != nil {
		return &usageError{err.Error()}
	}
	if o.Weight < 1 || o.Weight > math.MaxInt32 {
		return &usageError{fmt.Sprintf("--weight %d: a whole number from 1 to %d", o.Weight, math.MaxInt32)}
	}
	return a.withDatabase(ctx, func(d *database) error {
		store := projects.NewStore(d.pool)
		p, err := store.Get(ctx, args[0])
		if err != nil {
			return err
		}
		t := projects.Target{URL: args[1], Weight: int32(o.Weight), Enabled: !o.Disabled}
		if err := store.AddTarget(ctx, p, t); err != nil {
			return err
		}
		printf(a, "upload target %s (weight %d, enabled %t)\n", t.URL, t.Weight, t.Enabled)
		return nil
	})
}

func runTargetRemove(ctx context.Context, a *app, args []string) error {
	return a.withDatabase(ctx, func(d *database) error {
		store := projects.NewStore(d.pool)
		p, err := store.Get(ctx, args[0])
		if err != nil {
			return err
		}
		found, err := store.RemoveTarget(ctx, p, args[1])
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("%s has no upload target %s", p.Slug, args[1])
		}
		printf(a, "removed upload target %s\n", args[1])
		return nil
	})
}

type itemsAddOptions struct {
	Queue string // --queue
}

func runItemsAdd(ctx context.Context, a *app, args []string, o itemsAddOptions) error {
	queue := o.Queue
	if err := naming.ValidQueue(queue); err != nil {
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
		res, err := items.NewEngine(d.pool, a.log).Add(ctx, p, queue, in)
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

func runAdminCreate(ctx context.Context, a *app, args []string) error {
	password := a.getenv("TRACKER_PASSWORD")
	if password == "" {
		var err error
		if password, err = readPassword(a.io, args[0]); err != nil {
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

// readPassword reads the password of user from stdin: typed at a
// terminal, it asks for it on stderr without echoing it, twice (a typo
// cannot be seen); piped in, it is the first line, as scripts send it.
func readPassword(std stdio, user string) (string, error) {
	f, ok := std.in.(interface{ Fd() uintptr })
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return readLine(std.in)
	}
	fd := int(f.Fd())
	ask := func(prompt string) (string, error) {
		fmt.Fprint(std.err, prompt)
		b, err := term.ReadPassword(fd)
		fmt.Fprintln(std.err) // the Enter typed was not echoed either
		return string(b), err
	}
	password, err := ask("Password for " + user + ": ")
	if err != nil {
		return "", err
	}
	if password == "" {
		return "", errors.New("no password given")
	}
	again, err := ask("Again: ")
	if err != nil {
		return "", err
	}
	if again != password {
		return "", errors.New("the two passwords differ")
	}
	return password, nil
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

// runSettings prints the settings, after applying the assignments given.
func runSettings(ctx context.Context, a *app, args []string) error {
	return a.withDatabase(ctx, func(d *database) error {
		store := projects.NewStore(d.pool)
		s, err := store.Settings(ctx)
		if len(args) > 0 {
			s, err = store.SetSettings(ctx, args)
		}
		if err != nil {
			return err
		}
		return printJSON(a, s)
	})
}

// runCheck prints the books of one project, or of all and then the
// tracker's own (the report without a project: rows of no project,
// warrior records), and fails when any does not balance.
func runCheck(ctx context.Context, a *app, args []string) error {
	return a.withDatabase(ctx, func(d *database) error {
		store := projects.NewStore(d.pool)
		var ps []projects.Project
		if len(args) == 1 {
			p, err := store.Get(ctx, args[0])
			if err != nil {
				return err
			}
			ps = append(ps, p)
		} else {
			var err error
			if ps, err = store.List(ctx); err != nil {
				return err
			}
		}
		reports := []books.Report{}
		unbalanced := 0
		for _, p := range ps {
			r, err := books.Of(ctx, d.pool, p)
			if err != nil {
				return err
			}
			if !r.Balanced {
				unbalanced++
			}
			reports = append(reports, r)
		}
		if len(args) == 0 {
			r, err := books.Tracker(ctx, d.pool)
			if err != nil {
				return err
			}
			if !r.Balanced {
				unbalanced++
			}
			reports = append(reports, r)
		}
		if err := printJSON(a, reports); err != nil {
			return err
		}
		if unbalanced > 0 {
			return fmt.Errorf("%d of the books do not balance", unbalanced)
		}
		return nil
	})
}
