package stats

import (
	"context"

	"tracker/db"
	"tracker/projects"
)

// Purge removes a deleted project's statistics: its tallies, downloaders,
// series, backfeed minutes, domains and feed, a batch at a time. Stopped
// midway, it carries on where it was at the next call.
func (s *Store) Purge(ctx context.Context, p projects.Project) error {
	if err := p.CheckDeleting(); err != nil {
		return err
	}
	return db.Purge(ctx, p.ID,
		db.PurgeTableOf("done_tallies", s.q.DoneTalliesPurgeBatch),
		db.PurgeTableOf("downloaders", s.q.DownloadersPurgeBatch),
		db.PurgeTableOf("downloader_hours", s.q.DownloaderHoursPurgeBatch),
		db.PurgeTableOf("series_minutes", s.q.SeriesMinutesPurgeBatch),
		db.PurgeTableOf("series_hours", s.q.SeriesHoursPurgeBatch),
		db.PurgeTableOf("backfeed_minutes", s.q.BackfeedMinutesPurgeBatch),
		db.PurgeTableOf("domain_totals", s.q.DomainTotalsPurgeBatch),
		db.PurgeTableOf("feed", s.q.FeedPurgeBatch),
	)
}
