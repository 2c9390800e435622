package items

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"tracker/naming"
	"tracker/projects"
	"tracker/refusal"
)

// FindCursor is where a search of the item finder goes on: a list of the
// browser, and the place in it.
type FindCursor struct {
	Source string
	Key    BrowseKey
}

// Found is an item the finder found, and the list it is in.
type Found struct {
	Source string
	BrowseItem
}

// FindPage is a page of the finder's matches; Next goes on (nil: every
// list was searched), Scanned counts the entries read for the page.
type FindPage struct {
	Items   []Found
	Next    *FindCursor
	Scanned int64
}

// FindItems lists up to n items of the project whose names start with
// prefix, wherever they are: list by list (the queues, the claims, the
// schedule, the completed items), each in its order, from cursor (nil:
// from the start). A page reads at most BrowseScan entries in all, so it
// costs the same however many items the project has; a rare prefix takes
// more pages to find, never a longer one.
func (e *Engine) FindItems(ctx context.Context, p projects.Project, prefix string, from *FindCursor, n int) (FindPage, error) {
	var page FindPage
	if prefix == "" {
		return page, refusal.New(refusal.Invalid, "empty-prefix", errors.New("the finder needs the start of a name"))
	}
	if from != nil {
		if err := ValidSource(from.Source); err != nil {
			return page, refusal.New(refusal.Invalid, "bad-cursor", err)
		}
	}
	sum, err := projects.SummaryOf(ctx, e.q, p)
	if err != nil {
		return page, err
	}
	sources := append(naming.QueueNames(sum.Queues), BrowseClaims)
	if p.Config.Recurring() || sum.Revisits > 0 {
		sources = append(sources, BrowseScheduled)
	}
	sources = append(sources, BrowseDone)
	slices.SortStableFunc(sources, compareSources)
	i := 0
	if from != nil {
		i, _ = slices.BinarySearchFunc(sources, from.Source, compareSources)
	}
	budget := int64(BrowseScan)
	for ; i < len(sources); i++ {
		if budget <= 0 || len(page.Items) >= n {
			page.Next = &FindCursor{Source: sources[i], Key: start}
			return page, nil
		}
		bq := BrowseQuery{Source: sources[i], Filter: BrowseFilter{Prefix: prefix}, Max: n - len(page.Items), scan: int(budget)}
		if from != nil && from.Source == sources[i] {
			k := from.Key
			bq.After = &k
		}
		got, err := e.Browse(ctx, p, bq)
		if err != nil {
			return page, err
		}
		for _, it := range got.Items {
			page.Items = append(page.Items, Found{Source: sources[i], BrowseItem: it})
		}
		page.Scanned += got.Scanned
		budget -= max(got.Scanned, 1)
		if got.Next != nil {
			page.Next = &FindCursor{Source: sources[i], Key: *got.Next}
			return page, nil
		}
	}
	return page, nil
}

// compareSources orders the finder's lists: the standard queues in the
// order requests take them, the other queues by name, then the claims,
// the schedule and the completed items.
func compareSources(a, b string) int {
	rank := func(s string) (int, int) {
		if i := slices.Index(naming.StandardQueues, s); i >= 0 {
			return 0, i
		}
		switch s {
		case BrowseClaims:
			return 2, 0
		case BrowseScheduled:
			return 3, 0
		case BrowseDone:
			return 4, 0
		}
		return 1, 0
	}
	ga, ia := rank(a)
	gb, ib := rank(b)
	return cmp.Or(cmp.Compare(ga, gb), cmp.Compare(ia, ib), cmp.Compare(a, b))
}
