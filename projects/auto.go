package projects

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"tracker/db"
	"tracker/naming"
)

// AutoInterval is how long a choice of the auto project stands. Warriors
// ask their HQ every 10 minutes: a minute moves them soon enough, and a
// project whose queue empties and refills by the second is not chosen and
// left within it.
const AutoInterval = time.Minute

// MaxSlug bounds a project's slug (ValidSlug).
const MaxSlug = 64

// MaxAutoReason bounds the reason kept with a choice: a note for each
// project of the list, at most MaxAutoProjects.
const MaxAutoReason = 4 << 10

// AutoChoice is the project the projects file names as auto_project, and
// why.
type AutoChoice struct {
	Slug      string // "" for none: the file says null
	Reason    string
	DecidedAt time.Time // zero when nothing was decided (an empty list)
}

// AutoChoice is the auto project: the first project of the auto_project
// list that has items to hand out and runs (neither paused, finished,
// hidden nor deleted). The choice is kept in the database, so that every
// process names the same one, and made again once it is AutoInterval old,
// or at once when the list changed. A project that ran dry is left for
// the next; one ahead of the chosen one in the list is taken back once it
// has auto_project_refill items queued, not at its first.
func (s *Store) AutoChoice(ctx context.Context) (AutoChoice, error) {
	set, err := s.Settings(ctx)
	if err != nil {
		return AutoChoice{}, err
	}
	row, err := s.q.AutoChoiceGet(ctx, AutoInterval)
	if err != nil {
		return AutoChoice{}, err
	}
	if !row.Stale && row.List == set.AutoProject {
		return AutoChoice{Slug: row.Slug, Reason: row.Reason, DecidedAt: row.DecidedAt}, nil
	}
	var c AutoChoice
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		q := db.Of(tx)
		// Processes that found the choice stale together take turns here;
		// the later ones find it made.
		row, err := q.AutoChoiceLock(ctx, AutoInterval)
		if err != nil {
			return err
		}
		set, err := settingsOf(ctx, q)
		if err != nil {
			return err
		}
		if !row.Stale && row.List == set.AutoProject {
			c = AutoChoice{Slug: row.Slug, Reason: row.Reason, DecidedAt: row.DecidedAt}
			return nil
		}
		cands, err := autoCandidates(ctx, q, set.AutoProjects())
		if err != nil {
			return err
		}
		c.Slug, c.Reason = chooseAuto(cands, row.Slug, set.AutoRefill)
		c.DecidedAt, err = q.AutoChoicePut(ctx, db.AutoChoicePutParams{List: set.AutoProject, Slug: c.Slug, Reason: c.Reason})
		return err
	})
	return c, err
}

// autoCandidate is a project of the auto_project list as a choice sees it.
type autoCandidate struct {
	slug string
	// stops says why the project cannot be chosen ("" when it can).
	stops string
	// queued counts its items a request is served from.
	queued int64
}

func autoCandidates(ctx context.Context, q *db.Queries, slugs []string) ([]autoCandidate, error) {
	cands := make([]autoCandidate, 0, len(slugs))
	for _, slug := range slugs {
		c := autoCandidate{slug: slug}
		row, err := q.ProjectGetBySlug(ctx, slug)
		if errors.Is(err, pgx.ErrNoRows) {
			c.stops = "no such project"
			cands = append(cands, c)
			continue
		}
		if err != nil {
			return nil, err
		}
		p, err := decode(row)
		if err != nil {
			return nil, err
		}
		switch {
		case p.Config.Deleting:
			c.stops = "deleted"
		case p.Config.Finished:
			c.stops = "finished"
		case p.Config.Hidden:
			c.stops = "hidden"
		case p.Config.Paused:
			c.stops = "paused"
		default:
			sum, err := SummaryOf(ctx, q, p)
			if err != nil {
				return nil, err
			}
			for _, queue := range naming.ServedQueues(sum.Queues) {
				c.queued += sum.Queues[queue]
			}
		}
		cands = append(cands, c)
	}
	return cands, nil
}

// chooseAuto picks the auto project from the list's candidates, current
// being the one chosen last. The first that runs and has items queued is
// chosen, but one ahead of current needs refill items (at least one):
// warriors leave a project that ran dry and come back once it is worth
// the move. When only projects ahead have fewer, the first of them with
// any is chosen; with none queued anywhere, current stays while it runs,
// else the first that runs; and when none runs there is none.
func chooseAuto(cands []autoCandidate, current string, refill int64) (string, string) {
	refill = max(refill, 1)
	// Nothing chosen yet, or current no longer listed: no project is ahead.
	ahead := map[string]bool{}
	if i := slices.IndexFunc(cands, func(c autoCandidate) bool { return c.slug == current }); i >= 0 {
		for _, c := range cands[:i] {
			ahead[c.slug] = true
		}
	}
	var passed []string
	note := func(c autoCandidate) string {
		switch {
		case c.stops != "":
			return c.slug + " (" + c.stops + ")"
		case c.queued == 0:
			return c.slug + " (no items queued)"
		default:
			return fmt.Sprintf("%s (%d items queued, fewer than the %d it takes to come back to it)", c.slug, c.queued, refill)
		}
	}
	because := func(chosen, why string) (string, string) {
		reason := why
		if len(passed) > 0 {
			reason += " Passed over: " + strings.Join(passed, ", ") + "."
		}
		if len(reason) > MaxAutoReason {
			reason = reason[:MaxAutoReason]
		}
		return chosen, reason
	}
	for _, c := range cands {
		switch {
		case c.stops == "" && ahead[c.slug] && c.queued >= refill:
			return because(c.slug, fmt.Sprintf("%s has %d items queued, at least auto_project_refill (%d): warriors come back to it from %s.", c.slug, c.queued, refill, current))
		case c.stops == "" && !ahead[c.slug] && c.queued > 0:
			return because(c.slug, fmt.Sprintf("%s has %d items queued.", c.slug, c.queued))
		}
		passed = append(passed, note(c))
	}
	passed = nil
	for _, c := range cands {
		if c.stops == "" && c.queued > 0 {
			return because(c.slug, fmt.Sprintf("%s has %d items queued, fewer than auto_project_refill (%d), and no project after it has any.", c.slug, c.queued, refill))
		}
		passed = append(passed, note(c))
	}
	// Warriors wait on a project that runs, to start as soon as it has
	// items: null would stop them until their next update.
	for _, c := range cands {
		if c.slug == current && c.stops == "" {
			passed = nil
			return because(current, fmt.Sprintf("No project of the list has items queued: warriors wait on %s, which runs, until one has.", current))
		}
	}
	for _, c := range cands {
		if c.stops == "" {
			passed = nil
			return because(c.slug, fmt.Sprintf("No project of the list has items queued: warriors wait on %s, the first that runs, until one has.", c.slug))
		}
	}
	return because("", "No project of the list runs: the projects file says null, and warriors on auto run nothing.")
}
