package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"tracker/stats"
)

// Rollup folds the completions' tallies into the downloaders' totals and
// the time series behind the charts and the 24-hour and 7-day
// leaderboards, then drops minute buckets past their keep. Incremental: it
// reads only what was appended since its last run. A project whose tallies
// cannot be folded fails alone: the others are folded (stats.Store.Fold
// folds project by project once folding all together fails), and the run's
// summary and error name it. Dropping old minute buckets is one statement
// across projects: it picks rows by age alone, which no project's rows can
// make fail.
func Rollup(s *stats.Store) Job {
	return Job{
		Name:  "rollup",
		Every: 2 * time.Second,
		Run: func(ctx context.Context) (string, error) {
			folded, err := s.Fold(ctx)
			var partial *stats.FoldError
			if err != nil && !errors.As(err, &partial) {
				return fmt.Sprintf("folded %d tallies", folded), err
			}
			pruned, perr := s.Prune(ctx)
			summary := fmt.Sprintf("folded %d tallies, dropped %d minute buckets", folded, pruned)
			if partial != nil {
				names := partial.Names()
				noun := "project"
				if len(names) > 1 {
					noun = "projects"
				}
				summary += fmt.Sprintf("; not folded, left pending: %s %s", noun, strings.Join(names, ", "))
				// Reported as every job reports the projects it could not do.
				var failed ProjectErrors
				for _, p := range partial.Projects {
					failed.add(p.Name(), p.Err)
				}
				err = failed.err()
			}
			if perr != nil {
				perr = fmt.Errorf("dropping minute buckets: %w", perr)
			}
			return summary, errors.Join(err, perr)
		},
	}
}
