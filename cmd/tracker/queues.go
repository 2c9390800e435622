package main

import (
	"context"
	"fmt"

	"tracker/items"
	"tracker/projects"
)

// The queue commands: an admin's queue tools from the shell, for the error
// queue above all (the items that failed).

type queueListOptions struct {
	Prefix string // --prefix
	After  int64  // --after
	Max    int    // --max
}

// runQueueList prints a page of a queue as JSON lines, in order; the last
// line's id continues with --after.
func runQueueList(ctx context.Context, a *app, args []string, o queueListOptions) error {
	if o.Max < 1 || o.Max > 100_000 {
		return &usageError{fmt.Sprintf("--max %d: 1 to 100000", o.Max)}
	}
	return a.withDatabase(ctx, func(d *database) error {
		p, err := projects.NewStore(d.pool).Get(ctx, args[0])
		if err != nil {
			return err
		}
		list, err := items.NewEngine(d.pool, a.log).QueuePage(ctx, p, args[1], o.Prefix, o.After, o.Max)
		if err != nil {
			return err
		}
		for _, it := range list {
			if err := printJSONLine(a, it); err != nil {
				return err
			}
		}
		return nil
	})
}

type queueSelectOptions struct {
	Prefix  string // --prefix
	Pattern string // --pattern
}

// runQueueMove moves the selected items of one queue to another (from the
// error queue: with a fresh count of hand-outs) and says how many.
func runQueueMove(ctx context.Context, a *app, args []string, o queueSelectOptions) error {
	return moveItems(ctx, a, args[0], args[1], args[2], o)
}

// runQueueDrain drops the selected items of a queue for good (they stay
// seen) and says how many.
func runQueueDrain(ctx context.Context, a *app, args []string, o queueSelectOptions) error {
	return moveItems(ctx, a, args[0], args[1], "", o)
}

func moveItems(ctx context.Context, a *app, slug, from, to string, o queueSelectOptions) error {
	return a.withDatabase(ctx, func(d *database) error {
		p, err := projects.NewStore(d.pool).Get(ctx, slug)
		if err != nil {
			return err
		}
		n, err := items.NewEngine(d.pool, a.log).MoveQueue(ctx, p, from, to, items.Selection{Prefix: o.Prefix, Pattern: o.Pattern})
		verb := "moved"
		if to == "" {
			verb = "dropped"
		}
		printf(a, "%s %d items\n", verb, n)
		return err
	})
}

// runItemShow prints where an item stands as JSON: its state, claims that
// ran out, and what the lookup page shows.
func runItemShow(ctx context.Context, a *app, args []string) error {
	return a.withDatabase(ctx, func(d *database) error {
		live, err := projects.NewCache(projects.NewStore(d.pool), 0).Get(ctx, args[0])
		if err != nil {
			return err
		}
		st, err := items.NewEngine(d.pool, a.log).Lookup(ctx, live, args[1])
		if err != nil {
			return err
		}
		return printJSON(a, st)
	})
}
