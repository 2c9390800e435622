package scenarios

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"
	"tracker/bench/load"
	"tracker/bench/report"

	"tracker/books"
	"tracker/projects"
)

// The URL frontier's scenario: warriors on a project whose items are URLs
// of many sites, handed out politely, set beside the same load on the same
// items without sites, and on as many items of a tenth of the sites.

const (
	// The politeness of the sited projects.
	frontierLimit    = 2 // site_claims_limit
	frontierInterval = 5 // site_interval, seconds
	// The Zipf exponent of the sites' sizes: a few huge sites, a long tail.
	frontierZipf = 1.1
)

// frontierProject is one of the scenario's projects and what its run
// measured.
type frontierProject struct {
	slug  string
	sites int  // the sites its items are drawn from
	sited bool // site_key=host with the politeness above; else site_key=off
	// Of the import: the sites that got items, the most items of one.
	withItems, largest int
	took               time.Duration
	row                *report.Row
	// Requests answered and served, overall and over the seconds that
	// began and ended with enough sites due, and the items completed in
	// those seconds.
	requests, served                 int64
	dueRequests, dueServed, dueItems int64
	dueSeconds, seconds              int
	// The claim's statements: execution time per item handed out, and
	// each statement's calls, time and rows.
	claimMicros float64
	statements  map[string]statement
	politeness  books.Politeness
	balanced    bool
}

// statement is what pg_stat_statements says of one statement over a run.
type statement struct {
	calls, rows int64
	ms          float64
}

// claimStatements are the statements of the claim path (the queue walk
// runs in a sited project too, for items without a site).
var claimStatements = []string{"SitesDue", "SitesHeld", "SitesTake", "ClaimsTakeSlots"}

// frontier imports o.FrontierItems URL items, https://s<k>.example/<i> with
// site k drawn from a Zipf distribution, into three projects: one with
// site_key=off (the load without site limits), one with site_key=host,
// site_claims_limit=2 and site_interval=5 over o.FrontierSites sites, and
// one alike over a tenth of the sites (the claim's cost as the sites grow).
// Then it runs the same warriors on each in turn, 80% single and 20% multi
// (64 and 16 by default), and checks the sited projects' politeness from
// their completions and claims.
func (b *bench) frontier(ctx context.Context, clients int) error {
	start := time.Now()
	defer func() { fmt.Fprintf(os.Stderr, "frontier: %s in all\n", time.Since(start).Round(time.Second)) }()
	// Its own projects, like recurring and pages: no drain, which would
	// delete every project's queue (ten million items after recurring).
	n, many := b.o.FrontierItems, b.o.FrontierSites
	few := b.o.FrontierFewSites
	if few == 0 {
		few = max(1, many/10)
	}
	multis := clients / 5
	singles := clients - multis
	off := &frontierProject{slug: "frontier-off", sites: many}
	sited := &frontierProject{slug: "frontier-" + report.Short(many), sites: many, sited: true}
	fewer := &frontierProject{slug: "frontier-" + report.Short(few), sites: few, sited: true}
	if few == many {
		fewer.slug += "-again"
	}
	ps := []*frontierProject{off, sited, fewer}
	for _, p := range ps {
		if err := b.frontierImport(ctx, p, n); err != nil {
			return err
		}
	}
	vacuum := time.Now()
	if _, err := b.pool.Exec(ctx, "VACUUM ANALYZE todo, sites, claims"); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "frontier: VACUUM ANALYZE after the imports took %.1f s\n", time.Since(vacuum).Seconds())

	// Enough sites due: as many as every warrior's request could take at
	// once (a multi request takes site_claims_limit items of a site).
	enough := singles + multis*((b.o.Multi+frontierLimit-1)/frontierLimit)
	for _, p := range ps {
		if ctx.Err() != nil {
			return nil
		}
		if err := b.frontierRun(ctx, p, singles, multis, enough); err != nil {
			return err
		}
	}

	if ctx.Err() != nil {
		return nil
	}
	// Let the rollup fold the last seconds' tallies, then check the books.
	time.Sleep(3 * time.Second)
	store := projects.NewStore(b.pool)
	for _, p := range ps {
		pr, err := store.Get(ctx, p.slug)
		if err != nil {
			return err
		}
		r, err := books.Of(ctx, b.pool, pr)
		if err != nil {
			return fmt.Errorf("the books of %s: %w", p.slug, err)
		}
		p.balanced = r.Balanced
		if !r.Balanced {
			for _, c := range r.Checks {
				if !c.OK {
					fmt.Fprintf(os.Stderr, "frontier: %s: the books do not balance: %s: want %d, found %d\n", p.slug, c.Name, c.Want, c.Found)
				}
			}
		}
	}

	zipf := fmt.Sprintf("%d items over %d sites (Zipf s=%.1f: %d sites got items, the largest %d)", n, many, frontierZipf, sited.withItems, sited.largest)
	off.row.Note = fmt.Sprintf("site_key=off: the load without site limits on the same %s; %d single and %d multi=%d warriors; %s; %s",
		zipf, singles, multis, b.o.Multi, off.served1(), off.booksNote())
	if off.dueSeconds < off.seconds {
		off.row.Note += fmt.Sprintf("; THE QUEUE RAN DRY: items left for %d of %d s only (%.0f items/s in those), raise -frontier-items",
			off.dueSeconds, off.seconds, off.duePerSecond())
	}
	for _, p := range []*frontierProject{sited, fewer} {
		p.row.Note = fmt.Sprintf("site_key=host, site_claims_limit=%d, site_interval=%d: %d items over %d sites (%d got items, the largest %d), imported in %s; %.2f × off; %s; ≥ %d sites due for %d of %d s, %.0f items/s and %s of requests served in those; politeness: %d hand-outs under the interval, %d sites over the limit; %s; %s",
			frontierLimit, frontierInterval, n, p.sites, p.withItems, p.largest, p.took.Round(time.Second),
			p.row.ItemsPerS/off.row.ItemsPerS, p.served1(), enough, p.dueSeconds, p.seconds, p.duePerSecond(), report.Pct(p.dueServed, p.dueRequests),
			p.politeness.UnderInterval, p.politeness.OverLimit, p.claimNote(), p.booksNote())
		p.row.Note += fmt.Sprintf("; the politeness bounds it at %d sites × %d items / %d s = %.0f items/s at most, less as sites run out of items",
			p.withItems, frontierLimit, frontierInterval, float64(p.withItems*frontierLimit)/frontierInterval)
	}
	off.row.Note += "; " + off.claimNote()

	ratio := sited.row.ItemsPerS / off.row.ItemsPerS
	measured := fmt.Sprintf("%.0f against %.0f items/s: %.2f ×", sited.row.ItemsPerS, off.row.ItemsPerS, ratio)
	if sited.dueSeconds < sited.seconds || off.dueSeconds < off.seconds {
		measured += fmt.Sprintf(" (%.0f items/s over the %d of %d s with ≥ %d sites due, against %.0f over the %d of %d s the queue without sites had items: %.2f ×)",
			sited.duePerSecond(), sited.dueSeconds, sited.seconds, enough, off.duePerSecond(), off.dueSeconds, off.seconds, sited.duePerSecond()/off.duePerSecond())
	}
	b.goals = append(b.goals, report.Goal{
		Name:     "frontier: items/s ≥ 0.8 × the same load without site limits",
		Measured: measured,
		Status:   report.Met(ratio >= 0.8),
	})
	b.goals = append(b.goals, report.Goal{
		Name: "frontier: request serve rate ≥ 99 % while enough sites are due",
		Measured: fmt.Sprintf("%s of %d requests served over the %d of %d s with ≥ %d sites due (%s overall)",
			report.Pct(sited.dueServed, sited.dueRequests), sited.dueRequests, sited.dueSeconds, sited.seconds, enough, report.Pct(sited.served, sited.requests)),
		Status: report.Met(sited.dueRequests > 0 && float64(sited.dueServed) >= 0.99*float64(sited.dueRequests)),
	})
	polite := true
	var politeness []string
	for _, p := range []*frontierProject{sited, fewer} {
		polite = polite && p.politeness == books.Politeness{}
		politeness = append(politeness, fmt.Sprintf("%s sites: %d under the interval, %d over the limit", report.Short(p.sites), p.politeness.UnderInterval, p.politeness.OverLimit))
	}
	b.goals = append(b.goals, report.Goal{
		Name:     "frontier: no site over its limit or under its interval (from the completions and claims)",
		Measured: strings.Join(politeness, "; "),
		Status:   report.Met(polite),
	})
	cost := fewer.claimMicros / sited.claimMicros
	status := report.Met(cost >= 0.9)
	for _, p := range []*frontierProject{sited, fewer} {
		if 2*p.dueSeconds < p.seconds {
			// Starved of due sites, requests come back empty and the
			// claim's statements are spread over few items.
			status = fmt.Sprintf("not comparable: %s sites had ≥ %d due for %d of %d s only", report.Short(p.sites), enough, p.dueSeconds, p.seconds)
			break
		}
	}
	b.goals = append(b.goals, report.Goal{
		Name: fmt.Sprintf("frontier: claim cost flat from %s to %s sites (ratio ≥ 0.9)", report.Short(few), report.Short(many)),
		Measured: fmt.Sprintf("claim statements %.0f µs per item handed out at %s sites, %.0f at %s: %.2f; items/s %.0f at %s, %.0f at %s: %.2f",
			fewer.claimMicros, report.Short(few), sited.claimMicros, report.Short(many), cost,
			fewer.row.ItemsPerS, report.Short(few), sited.row.ItemsPerS, report.Short(many), sited.row.ItemsPerS/fewer.row.ItemsPerS),
		Status: status,
	})
	return nil
}

// frontierImport creates a project and queues n URL items into it, their
// sites drawn from a Zipf distribution over p.sites sites, the same for
// every project of as many sites.
func (b *bench) frontierImport(ctx context.Context, p *frontierProject, n int) error {
	if _, err := b.cli("", "project", "create", p.slug, "--title", "Frontier"); err != nil {
		return err
	}
	set := []string{"project", "set", p.slug, "site_key=off"}
	if p.sited {
		set = []string{"project", "set", p.slug, "site_key=host",
			"site_claims_limit=" + strconv.Itoa(frontierLimit), "site_interval=" + strconv.Itoa(frontierInterval)}
	}
	if _, err := b.cli("", set...); err != nil {
		return err
	}
	zipf := rand.NewZipf(rand.New(rand.NewPCG(1, 2)), frontierZipf, 1, uint64(p.sites-1))
	counts := make([]int32, p.sites)
	took, err := b.fillLines(p.slug, n, func(w *bufio.Writer, i int) {
		k := zipf.Uint64()
		counts[k]++
		w.WriteString("https://s")
		w.WriteString(strconv.FormatUint(k, 10))
		w.WriteString(".example/")
		w.WriteString(strconv.Itoa(i))
		w.WriteByte('\n')
	})
	if err != nil {
		return err
	}
	p.took = took
	for _, c := range counts {
		if c > 0 {
			p.withItems++
		}
		p.largest = max(p.largest, int(c))
	}
	fmt.Fprintf(os.Stderr, "%s: imported %d items over %d sites in %.1f s (%.0f items/s)\n", p.slug, n, p.withItems, took.Seconds(), float64(n)/took.Seconds())
	return ctx.Err()
}

// frontierRun runs the warriors on one of the frontier's projects, counts
// its requests served second by second beside the sites due, and reads the
// claim's cost and the project's politeness after.
func (b *bench) frontierRun(ctx context.Context, p *frontierProject, singles, multis, enough int) error {
	var id int32
	if err := b.pool.QueryRow(ctx, "SELECT id FROM projects WHERE slug = $1", p.slug).Scan(&id); err != nil {
		return err
	}
	b.pool.Exec(ctx, "VACUUM ANALYZE claims, sites")
	project := b.project
	b.project = p.slug
	defer func() { b.project = project }()
	var line []string
	var run *load.Load
	p.row = b.measure(ctx, "frontier "+strings.TrimPrefix(p.slug, "frontier-"), singles+multis, func(ctx context.Context, l *load.Load) []func() {
		run = l
		var fs []func()
		for i := range singles {
			fs = append(fs, func() { l.Warrior(ctx, fmt.Sprintf("s%d", i), 1) })
		}
		for i := range multis {
			fs = append(fs, func() { l.Warrior(ctx, fmt.Sprintf("m%d", i), b.o.Multi) })
		}
		// Each second: the requests answered and served, the items
		// completed, and whether enough sites were due at its start and
		// its end.
		fs = append(fs, func() {
			due := func() bool {
				if !p.sited { // the queue has items left
					var any bool
					err := b.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM todo WHERE project_id = $1)", id).Scan(&any)
					return err == nil && any
				}
				var n int
				err := b.pool.QueryRow(ctx, `
					SELECT count(*) FROM (SELECT 1 FROM sites
					WHERE project_id = $1 AND queued > 0 AND NOT blocked AND NOT at_limit AND due_at <= now()
					LIMIT $2) s`, id, enough).Scan(&n)
				return err == nil && n >= enough
			}
			wasDue := due()
			var requests, served, items int64
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				isDue := due()
				r, s, i := l.Requests.Load(), l.Served.Load(), l.Items.Load()
				if ctx.Err() != nil {
					return
				}
				p.seconds++
				mark := "*"
				if wasDue && isDue {
					mark = ""
					p.dueSeconds++
					p.dueRequests += r - requests
					p.dueServed += s - served
					p.dueItems += i - items
				}
				line = append(line, fmt.Sprintf("%d/%s%s", i-items, strings.ReplaceAll(report.Pct(s-served, r-requests), " ", ""), mark))
				wasDue, requests, served, items = isDue, r, s, i
			}
		})
		return fs
	}, "")
	p.requests, p.served = run.Requests.Load(), run.Served.Load()
	what := fmt.Sprintf("fewer than %d sites due", enough)
	if !p.sited {
		what = "the queue empty"
	}
	fmt.Fprintf(os.Stderr, "%s: items/served by second (* %s): %s\n", p.slug, what, strings.Join(line, " "))
	return b.frontierAfter(ctx, p)
}

// frontierAfter reads what a frontier run left: the claim statements'
// cost and the politeness of its project.
func (b *bench) frontierAfter(ctx context.Context, p *frontierProject) error {
	p.statements = map[string]statement{}
	rows, err := b.pool.Query(ctx, `
		SELECT substring(query FROM '^-- name: (\w+) '), sum(calls)::bigint, sum(rows)::bigint, sum(total_exec_time)
		FROM pg_stat_statements WHERE substring(query FROM '^-- name: (\w+) ') = ANY($1) GROUP BY 1`, claimStatements)
	if err == nil {
		for rows.Next() {
			var name string
			var st statement
			if rows.Scan(&name, &st.calls, &st.rows, &st.ms) == nil {
				p.statements[name] = st
			}
		}
		rows.Close()
	}
	var ms float64
	for _, st := range p.statements {
		ms += st.ms
	}
	if items := p.statements["SitesTake"].rows + p.statements["ClaimsTakeSlots"].rows; items > 0 {
		p.claimMicros = ms * 1000 / float64(items)
	}
	if !p.sited {
		return nil
	}
	pr, err := projects.NewStore(b.pool).Get(ctx, p.slug)
	if err != nil {
		return err
	}
	start := time.Now()
	if p.politeness, err = books.PolitenessOf(ctx, b.pool, pr); err != nil {
		return fmt.Errorf("politeness of %s: %w", p.slug, err)
	}
	fmt.Fprintf(os.Stderr, "%s: politeness checked in %.1f s: %d under the interval, %d over the limit\n",
		p.slug, time.Since(start).Seconds(), p.politeness.UnderInterval, p.politeness.OverLimit)
	return nil
}

// claimNote writes the claim statements' cost: per item handed out, and
// each statement's calls, items and time per call.
func (p *frontierProject) claimNote() string {
	var parts []string
	for _, name := range claimStatements {
		st, ok := p.statements[name]
		if !ok || st.calls == 0 {
			continue
		}
		part := fmt.Sprintf("%s %d calls of %.2f ms", name, st.calls, st.ms/float64(st.calls))
		if name == "SitesTake" || name == "ClaimsTakeSlots" {
			part += fmt.Sprintf(", %d items", st.rows)
		}
		parts = append(parts, part)
	}
	return fmt.Sprintf("claim statements %.0f µs per item handed out (%s)", p.claimMicros, strings.Join(parts, "; "))
}

// duePerSecond is the items completed per second over the seconds with
// enough sites due.
func (p *frontierProject) duePerSecond() float64 {
	if p.dueSeconds == 0 {
		return 0
	}
	return float64(p.dueItems) / float64(p.dueSeconds)
}

// served1 says how many of a run's requests were served.
func (p *frontierProject) served1() string {
	return fmt.Sprintf("%s of %d requests served", report.Pct(p.served, p.requests), p.requests)
}

func (p *frontierProject) booksNote() string {
	if p.balanced {
		return "the books balance"
	}
	return "THE BOOKS DO NOT BALANCE"
}
