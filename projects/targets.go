package projects

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"regexp"
	"strings"

	"tracker/audit"
	"tracker/db"
	"tracker/refusal"
)

// Target is a place warriors upload their results to.
type Target struct {
	URL     string
	Weight  int32
	Enabled bool
}

// The upload targets seesaw takes (UploadWithTracker in its tracker.py):
// it runs rsync for a target matching rsyncTarget, curl for one matching
// httpTarget, and refuses any other ("Received invalid upload URI"),
// asking the tracker again, for ever.
var (
	rsyncTarget = regexp.MustCompile(`^rsync://.+/$`)
	httpTarget  = regexp.MustCompile(`^https?://.+/$`)
)

// ValidTargetURL says why u cannot be an upload target: the warrior runs
// rsync for rsync://…/ and curl for http(s)://…/, each naming the directory
// the files go into, and knows nothing else.
func ValidTargetURL(u string) error {
	if len(u) > MaxURL {
		return refusal.New(refusal.Invalid, "too-long", &TooLongError{Field: "upload target", Max: MaxURL})
	}
	parsed, err := url.Parse(u)
	if err != nil || parsed.Host == "" {
		return fmt.Errorf("%q is not an absolute URL", u)
	}
	if !rsyncTarget.MatchString(u) && !httpTarget.MatchString(u) {
		if !strings.HasPrefix(u, "rsync://") && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return fmt.Errorf("%q: an upload target is rsync://, http:// or https:// (in lower case)", u)
		}
		return fmt.Errorf("%q: an upload target ends in \"/\" (the directory the files go into): warriors take only rsync://…/ and http(s)://…/ and refuse any other", u)
	}
	return nil
}

// TargetProblem says why warriors refuse a stored target, one added before
// ValidTargetURL checked what they take ("" when they take it).
func TargetProblem(u string) string {
	if err := ValidTargetURL(u); err != nil {
		return "Warriors refuse this target and ask again: " + err.Error()
	}
	return ""
}

// TargetsWarning says what goes wrong with a project's targets given how
// many files its pipeline uploads per item ("" when nothing does): seesaw
// uploads to an http(s) target with curl, and only an item of exactly one
// file.
func TargetsWarning(c Config, ts []Target) string {
	if c.FilesPerItem <= 1 {
		return ""
	}
	var rsync, http int
	for _, t := range ts {
		switch {
		case !t.Enabled:
		case rsyncTarget.MatchString(t.URL):
			rsync++
		case httpTarget.MatchString(t.URL):
			http++
		}
	}
	switch {
	case http == 0:
		return ""
	case rsync == 0:
		return fmt.Sprintf("The pipeline uploads %d files per item (files_per_item), and warriors upload to an http(s) target only an item of one file: with only http(s) targets on, no upload works. Add an rsync target.", c.FilesPerItem)
	}
	return fmt.Sprintf("The pipeline uploads %d files per item (files_per_item), and warriors upload to an http(s) target only an item of one file: a warrior given an http(s) target cannot upload and asks again. Turn the http(s) targets off.", c.FilesPerItem)
}

// AddTarget stores a target (its weight and switch replaced if it exists).
func (s *Store) AddTarget(ctx context.Context, p Project, t Target) error {
	if err := ValidTargetURL(t.URL); err != nil {
		return err
	}
	if t.Weight < 1 {
		return errors.New("a target's weight is 1 or more")
	}
	return db.WithTx(ctx, s.pool, func(q *db.Queries) error {
		_, err := q.UploadTargetInsert(ctx, db.UploadTargetInsertParams{ProjectID: p.ID, URL: t.URL, Weight: t.Weight, Enabled: t.Enabled})
		if err != nil {
			return err
		}
		return audit.Record(ctx, q, "target.add", p.ID, map[string]any{"url": t.URL, "weight": t.Weight, "enabled": t.Enabled})
	})
}

// RemoveTarget deletes a target and says whether there was one.
func (s *Store) RemoveTarget(ctx context.Context, p Project, u string) (bool, error) {
	var n int64
	err := db.WithTx(ctx, s.pool, func(q *db.Queries) error {
		var err error
		if n, err = q.UploadTargetDelete(ctx, db.UploadTargetDeleteParams{ProjectID: p.ID, URL: u}); err != nil || n == 0 {
			return err
		}
		return audit.Record(ctx, q, "target.remove", p.ID, map[string]any{"url": u})
	})
	return n > 0, err
}

// Targets lists the project's targets.
func (s *Store) Targets(ctx context.Context, p Project) ([]Target, error) {
	rows, err := s.q.UploadTargetsForProject(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	ts := make([]Target, 0, len(rows))
	for _, r := range rows {
		ts = append(ts, Target{URL: r.URL, Weight: r.Weight, Enabled: r.Enabled})
	}
	return ts, nil
}

// PickTarget chooses an enabled target at random in proportion to the
// weights and fills in the uploader's nick; ok is false when none is enabled.
func PickTarget(ts []Target, nick string) (string, bool) {
	var total int64
	for _, t := range ts {
		if t.Enabled {
			total += int64(t.Weight)
		}
	}
	if total == 0 {
		return "", false
	}
	n := rand.Int64N(total)
	for _, t := range ts {
		if !t.Enabled {
			continue
		}
		if n < int64(t.Weight) {
			return strings.ReplaceAll(t.URL, ":downloader", nick), true
		}
		n -= int64(t.Weight)
	}
	panic("unreachable")
}
