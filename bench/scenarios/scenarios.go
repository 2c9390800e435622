package scenarios

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// scenario runs one named scenario and, for warrior scenarios, its floor
// and yardstick. A name may end in :N, N clients instead of its default
// (single:8).
func (b *bench) scenario(ctx context.Context, name string) error {
	name, fixed, err := splitName(name)
	if err != nil {
		return err
	}
	clients := func(def int) int { return pickClients(fixed, b.o.Clients, def) }
	switch name {
	case "single":
		n := clients(64)
		return b.warriors(ctx, name, n, 1, 40_000)
	case "multi":
		n := clients(16)
		return b.warriors(ctx, name, n, b.o.Multi, 150_000)
	case "single-lifecycle":
		return b.lifecycle(ctx, name, clients(64), 1, 40_000, false)
	case "multi-lifecycle":
		return b.lifecycle(ctx, name, clients(16), b.o.Multi, 150_000, false)
	case "multi-documents":
		return b.lifecycle(ctx, name, clients(16), b.o.Multi, 150_000, true)
	case "recurring":
		return b.recurring(ctx, clients(32))
	case "multi-repeat":
		// Not in the default run: what a repeated done costs, against
		// multi's.
		return b.multiRepeat(ctx, name, clients(16))
	case "backfeed":
		return b.backfeed(ctx, name, clients(8))
	case "mixed":
		return b.mixed(ctx, name, clients(64))
	case "lookup":
		return b.lookup(ctx, name, clients(32))
	case "readers":
		return b.readers(ctx, name, clients(32), 8, false)
	case "readers-200":
		return b.readers(ctx, name, clients(32), 200, true)
	case "connection-hog":
		return b.connectionHog(ctx, name, clients(32))
	case "admin-search":
		// 30 admins searching, as many as once took every connection of
		// the web pool.
		return b.adminSearch(ctx, name, clients(32), 30)
	case "viewers":
		return b.viewersScenario(ctx, name, clients(32), b.o.Viewers)
	case "pages":
		return b.pages(ctx)
	case "disk":
		return b.disk(ctx, b.o.DiskItems)
	case "frontier":
		return b.frontier(ctx, clients(80))
	case "field":
		return b.field(ctx)
	case "dedup":
		// The sweep's dedup part alone: its import of -dedup-seen names
		// takes the longest of all.
		return b.dedupSweep(ctx, b.o.DedupSeen)
	}
	return fmt.Errorf("unknown scenario %q", name)
}

// splitName splits a scenario's name from the clients it asks for, as in
// single:8; fixed is 0 when the name gives none.
func splitName(name string) (base string, fixed int, err error) {
	base, n, ok := strings.Cut(name, ":")
	if !ok {
		return name, 0, nil
	}
	if fixed, err = strconv.Atoi(n); err != nil || fixed <= 0 {
		return "", 0, fmt.Errorf("scenario %q: clients must be a positive number", name)
	}
	return base, fixed, nil
}

// pickClients is a run's clients: the name's (single:8) over -clients over
// the scenario's own default, so one scenario can be run at another size
// beside the others in one command line.
func pickClients(fixed, flag, def int) int {
	if fixed > 0 {
		return fixed
	}
	if flag > 0 {
		return flag
	}
	return def
}

// refill empties the queues and queues enough items for a run at perSecond.
func (b *bench) refill(ctx context.Context, perSecond int) error {
	if err := b.drain(ctx); err != nil {
		return err
	}
	n := b.o.Queue
	if n == 0 {
		n = perSecond * int(b.o.Duration/time.Second+1)
	}
	_, err := b.fill(n, fmt.Sprintf("item:%d:", time.Now().UnixNano()))
	return err
}
