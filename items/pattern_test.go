package items_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"tracker/items"
	"tracker/refusal"
)

// A regular expression runs in PostgreSQL only when its cost per name is
// bounded: short, no back-reference and no lookaround (which PostgreSQL
// matches by trying), small with its repetitions written out, and in the
// syntax the check can read. Every entry point that takes one (the queue
// browser's search, the counts and the bulk changes) refuses the same
// patterns with the same reason, before they reach the database, and
// changes nothing; the patterns taken run in PostgreSQL as they are.
func TestPatternCost(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.add(t, "todo", "post:1", "post:22", "user:a", "user:bb")
	ctx := context.Background()
	for _, c := range []struct {
		pattern string
		reason  string // "": taken
		matches int    // of the four names, when taken
	}{
		{"", "", 4},
		{"^post:[0-9]+$", "", 2},
		{`^user:\w{2}$`, "", 1},
		{"(?i)^USER:", "", 2},
		// No backtracking in PostgreSQL: nested quantifiers cost it what
		// the plain ones do.
		{"^(p(o|s)+t?)+:", "", 2},
		{"([a-z]+)+:[0-9]", "", 2},
		{`\\1`, "", 0}, // a backslash, then 1: no back-reference
		{".{0,200}b", "", 1},
		{strings.Repeat("x", items.MaxPatternBytes), "", 0},

		{strings.Repeat("x", items.MaxPatternBytes+1), "pattern-too-long", 0},
		{`(\w)\1`, "costly-pattern", 0},
		{`^(.)(.)(.)(.)(.)(.)(.)(.)(.)(.)(.)(.)\12`, "costly-pattern", 0},
		{`[\1]`, "costly-pattern", 0},
		{"(?=.*a)user", "costly-pattern", 0},
		{"^(?!post)", "costly-pattern", 0},
		{"(?<=user:)a", "costly-pattern", 0},
		{"(?<!u)ser", "costly-pattern", 0},
		{"((?=(?=.*a).*b).)*c", "costly-pattern", 0},
		{"[a-z]{250}[0-9]{250}[a-z]{250}[0-9]{250}", "costly-pattern", 0},
		{"((", "bad-pattern", 0},
		{`\mpost\M`, "bad-pattern", 0},
		{"[[:<:]]post", "bad-pattern", 0},
		{"***=post", "bad-pattern", 0},
		{"(?x) p o s t", "bad-pattern", 0},
	} {
		err := items.CheckPattern(c.pattern)
		if got := reasonOf(err); got != c.reason {
			t.Errorf("CheckPattern(%.40q): %q (%v), want %q", c.pattern, got, err, c.reason)
			continue
		}
		page, err := f.engine.Browse(ctx, f.project, items.BrowseQuery{Source: "todo", Max: 10, Filter: items.BrowseFilter{Pattern: c.pattern}})
		if got := reasonOf(err); got != c.reason {
			t.Errorf("Browse with %.40q: %q (%v), want %q", c.pattern, got, err, c.reason)
		}
		if c.reason == "" && len(page.Items) != c.matches {
			t.Errorf("Browse with %.40q: %d names, want %d", c.pattern, len(page.Items), c.matches)
		}
		if c.reason == "" {
			continue
		}
		sel := items.Selection{Pattern: c.pattern}
		_, errCount := f.engine.CountQueued(ctx, f.project, "todo", sel)
		_, errDone := f.engine.CountDone(ctx, f.project, sel)
		_, errClaims := f.engine.CountClaimsWhere(ctx, f.project, "", 0, sel)
		_, errMove := f.engine.MoveQueue(ctx, f.project, "todo", "redo", sel)
		_, errDrain := f.engine.MoveQueue(ctx, f.project, "todo", "", sel)
		_, errRequeue := f.engine.RequeueDone(ctx, f.project, "redo", sel)
		_, errRelease := f.engine.ReleaseWhere(ctx, f.project, "", 0, sel)
		for what, err := range map[string]error{"CountQueued": errCount, "CountDone": errDone, "CountClaimsWhere": errClaims,
			"MoveQueue": errMove, "MoveQueue to nowhere": errDrain, "RequeueDone": errRequeue, "ReleaseWhere": errRelease} {
			if got := reasonOf(err); got != c.reason {
				t.Errorf("%s with %.40q: %q (%v), want %q", what, c.pattern, got, err, c.reason)
			}
		}
	}
	if s, err := f.store.Summary(ctx, f.project); err != nil || s.Queues["todo"] != 4 || s.Queues["redo"] != 0 {
		t.Fatalf("refused patterns changed the queues: %v %v", s.Queues, err)
	}
	// A name selected exactly is quoted, not checked: its length is its
	// cost.
	long := "user:" + strings.Repeat("y", 1000)
	f.add(t, "todo", long)
	if n, err := f.engine.MoveQueue(ctx, f.project, "todo", "redo", items.Exactly(long)); err != nil || n != 1 {
		t.Fatalf("moving a long name exactly: %d, %v", n, err)
	}
}

// reasonOf is the reason of a refusal, "" for nil, and the error
// itself otherwise.
func reasonOf(err error) string {
	var e *refusal.Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Reason
	}
	return err.Error()
}
