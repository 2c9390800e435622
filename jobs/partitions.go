// Package jobs holds the tracker's background services. Each has Start and
// Stop; serve starts them after the database is ready and stops them after
// the web server has drained.
package jobs

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"tracker/projects"
)

// Partitions keeps every project's completion partitions created a week
// ahead, so completions land in day partitions (which archival detaches
// whole) rather than in the default partition.
type Partitions struct {
	log      *slog.Logger
	projects *projects.Store
	interval time.Duration
	now      func() time.Time

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func NewPartitions(log *slog.Logger, store *projects.Store) *Partitions {
	return &Partitions{log: log, projects: store, interval: time.Hour, now: time.Now}
}

// Start creates the partitions now, so a new day is covered before the
// first request, then again every hour in the background.
func (p *Partitions) Start(ctx context.Context) error {
	if err := p.RunOnce(ctx); err != nil {
		return err
	}
	ctx, p.cancel = context.WithCancel(ctx)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		ticker := time.NewTicker(p.interval)
		defer ticker.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
				if err := p.RunOnce(ctx); err != nil && ctx.Err() == nil {
					p.log.Error("creating completion partitions", "err", err)
				}
			}
		}
	}()
	return nil
}

// Stop ends the background loop and waits for a run in progress.
func (p *Partitions) Stop() {
	if p.cancel != nil {
		p.cancel()
	}
	p.wg.Wait()
}

// RunOnce creates the missing partitions of every project. Creating them is
// idempotent and serialised in the database, so every tracker process may
// run it.
func (p *Partitions) RunOnce(ctx context.Context) error {
	ps, err := p.projects.List(ctx)
	if err != nil {
		return err
	}
	now := p.now()
	for _, proj := range ps {
		if err := p.projects.EnsurePartitions(ctx, proj, now); err != nil {
			return err
		}
	}
	return nil
}
