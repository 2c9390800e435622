package volunteers

import (
	"context"
	"errors"

	"tracker/db"
)

// Purge removes a deleted project's marks and days, a batch at a time.
// Stopped midway, it carries on where it was at the next call. Only for a
// project being deleted: jobs.Purge calls it. The tracker-wide counts are
// no project's and are never purged.
func (c *Counter) Purge(ctx context.Context, projectID int32) error {
	if projectID == Tracker {
		return errors.New("the tracker-wide volunteers are no project's to purge")
	}
	return db.Purge(ctx, projectID,
		db.PurgeTableOf("volunteer_marks", c.q.VolunteersPurgeBatch),
		db.PurgeTableOf("volunteer_days", c.q.VolunteerDaysPurgeBatch),
	)
}
