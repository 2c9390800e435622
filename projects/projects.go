// Package projects holds projects and their configuration: creating them,
// finding them by slug, and summarising their queues.
package projects

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/audit"
	"tracker/db"
	"tracker/refusal"
)

var (
	ErrNotFound = refusal.New(refusal.NotFound, "unknown-project", errors.New("no such project"))
	ErrExists   = refusal.New(refusal.Conflict, "project-exists", errors.New("a project with that slug exists already"))
)

// Project is a project with its configuration decoded.
type Project struct {
	ID        int32
	Slug      string
	Title     string
	Config    Config
	CreatedAt time.Time
}

var slugRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// reserved are first path segments the tracker's own pages use.
var reserved = []string{"admin", "all", "api", "backfeed", "debug", "dictionary", "downloader", "downloads", "healthz", "metrics", "now", "projects", "recent", "static", "stats", "warriors"}

// ValidSlug says why slug cannot name a project, or returns nil.
func ValidSlug(slug string) error {
	if !slugRE.MatchString(slug) {
		return fmt.Errorf("invalid slug %q: 1-64 lowercase letters, digits, '-' and '_', starting with a letter or digit", slug)
	}
	if slices.Contains(reserved, slug) {
		return fmt.Errorf("invalid slug %q: the tracker uses /%s/ itself", slug, slug)
	}
	return nil
}

// Store reads and writes projects.
type Store struct {
	pool *pgxpool.Pool
	q    *db.Queries
}

func NewStore(pool *pgxpool.Pool) *Store {
	return &Store{pool: pool, q: db.Of(pool)}
}

// Create makes a project with the default configuration, a fresh backfeed
// key and its first days of completion partitions.
func (s *Store) Create(ctx context.Context, slug, title string) (Project, error) {
	if err := ValidSlug(slug); err != nil {
		return Project{}, err
	}
	if len(title) > MaxTitle {
		return Project{}, refusal.New(refusal.Invalid, "too-long", &TooLongError{Field: "title", Max: MaxTitle})
	}
	cfg := DefaultConfig()
	cfg.BackfeedKey = newKey()
	doc, err := json.Marshal(cfg)
	if err != nil {
		return Project{}, err
	}
	var p Project
	err = db.WithTx(ctx, s.pool, func(q *db.Queries) error {
		row, err := q.ProjectInsert(ctx, db.ProjectInsertParams{Slug: slug, Title: title, Config: doc})
		if err != nil {
			return err
		}
		if p, err = decode(row); err != nil {
			return err
		}
		if err := ensurePartitions(ctx, q, p.ID, time.Now()); err != nil {
			return err
		}
		return audit.Record(ctx, q, "project.create", p.ID, map[string]any{"slug": slug, "title": title})
	})
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return Project{}, fmt.Errorf("%w: %s", ErrExists, slug)
	}
	return p, err
}

// EnsurePartitions creates the project's completion partitions from the day
// before now to a week ahead.
func (s *Store) EnsurePartitions(ctx context.Context, p Project, now time.Time) error {
	return ensurePartitions(ctx, s.q, p.ID, now)
}

func ensurePartitions(ctx context.Context, q *db.Queries, projectID int32, now time.Time) error {
	day := now.UTC().Truncate(24 * time.Hour)
	_, err := q.ProjectDonePartitionsEnsure(ctx, db.ProjectDonePartitionsEnsureParams{
		ProjectID: projectID,
		FirstDay:  day.AddDate(0, 0, -1),
		LastDay:   day.AddDate(0, 0, 7),
	})
	return err
}

// Get finds a project by slug.
func (s *Store) Get(ctx context.Context, slug string) (Project, error) {
	row, err := s.q.ProjectGetBySlug(ctx, slug)
	if errors.Is(err, pgx.ErrNoRows) {
		return Project{}, fmt.Errorf("%w: %s", ErrNotFound, slug)
	}
	if err != nil {
		return Project{}, err
	}
	p, err := decode(row)
	if err == nil && p.Config.Deleting {
		return Project{}, fmt.Errorf("%w: %s (being deleted)", ErrNotFound, slug)
	}
	return p, err
}

// List returns every project, by slug, but those being deleted.
func (s *Store) List(ctx context.Context) ([]Project, error) {
	return s.list(ctx, false)
}

// ListDeleting returns the projects being deleted.
func (s *Store) ListDeleting(ctx context.Context) ([]Project, error) {
	return s.list(ctx, true)
}

// ListGone returns the projects deleted, their purge over, whose rows are
// found all the same: written after the purge by what read the project
// before it was deleted (see ProjectsGoneHolding), or left by a tracker
// that wrote them. Each is a Project of its id only ("#ID" for its slug),
// being deleted: the purge takes its rows again.
func (s *Store) ListGone(ctx context.Context) ([]Project, error) {
	ids, err := s.q.ProjectsGone(ctx)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	if ids, err = s.q.ProjectsGoneHolding(ctx, ids); err != nil {
		return nil, err
	}
	ps := make([]Project, len(ids))
	for i, id := range ids {
		ps[i] = Project{ID: id, Slug: fmt.Sprintf("#%d", id), Config: DefaultConfig()}
		ps[i].Config.Deleting = true
	}
	return ps, nil
}

func (s *Store) list(ctx context.Context, deleting bool) ([]Project, error) {
	rows, err := s.q.ProjectList(ctx)
	if err != nil {
		return nil, err
	}
	ps := make([]Project, 0, len(rows))
	for _, row := range rows {
		p, err := decode(row)
		if err != nil {
			return nil, err
		}
		if p.Config.Deleting == deleting {
			ps = append(ps, p)
		}
	}
	return ps, nil
}

func decode(row db.Project) (Project, error) {
	cfg := DefaultConfig()
	if err := json.Unmarshal(row.Config, &cfg); err != nil {
		return Project{}, fmt.Errorf("project %s: config: %w", row.Slug, err)
	}
	p := Project{ID: row.ID, Slug: row.Slug, Title: row.Title, Config: cfg, CreatedAt: row.CreatedAt}
	p.clamp()
	return p, nil
}

// update stores a project's title and configuration and records the action
// with detail. When the stretches items are filed under change (the
// per-type limits, whether the project keeps sites), the queued items are
// refiled in the same transaction, so the new configuration holds for every
// item from then on: under the stretches lock, which the statements filing
// items hold while they do (see ProjectStretchesShare).
func (s *Store) update(ctx context.Context, old, p Project, action string, detail map[string]any) (Project, error) {
	if err := p.validate(); err != nil {
		return Project{}, err
	}
	doc, err := json.Marshal(p.Config)
	if err != nil {
		return Project{}, err
	}
	var updated Project
	err = db.WithTx(ctx, s.pool, func(q *db.Queries) error {
		// old may be a view read a while ago: what is stored decides.
		stored, err := q.ProjectGetByID(ctx, p.ID)
		if err != nil {
			return err
		}
		before, err := decode(stored)
		if err != nil {
			return err
		}
		unsite := before.Config.Sited() && !p.Config.Sited()
		retype := !slices.Equal(before.Config.LimitedTypes(), p.Config.LimitedTypes())
		if unsite || retype {
			if err := q.ProjectStretchesLock(ctx, p.ID); err != nil {
				return err
			}
		}
		row, err := q.ProjectUpdateConfig(ctx, db.ProjectUpdateConfigParams{ID: p.ID, Title: p.Title, Config: doc})
		if err != nil {
			return err
		}
		if updated, err = decode(row); err != nil {
			return err
		}
		if unsite {
			// The items keep their places; the queue walks serve them.
			if err := q.TodoUnsite(ctx, p.ID); err != nil {
				return err
			}
		}
		if retype {
			if err := q.TodoRetype(ctx, p.ID); err != nil {
				return err
			}
		}
		if before.Config.SiteClaimsLimit != p.Config.SiteClaimsLimit {
			if err := q.SitesLimitChanged(ctx, p.ID); err != nil {
				return err
			}
		}
		return audit.Record(ctx, q, action, p.ID, detail)
	})
	return updated, err
}

// Set applies KEY=VALUE assignments, all or none, and stores the result.
// A FieldErrors names each key refused.
func (s *Store) Set(ctx context.Context, p Project, assignments []string) (Project, error) {
	changed, err := p.With(assignments)
	if err != nil {
		return Project{}, err
	}
	return s.update(ctx, p, changed, "project.config", changes(p, changed))
}

// changes tells what differs between two versions of a project, key by key:
// {"key": {"from": old, "to": new}}.
func changes(old, p Project) map[string]any {
	diff := map[string]any{}
	for _, k := range Keys {
		if from, to := k.Value(old), k.Value(p); from != to {
			diff[k.Name] = map[string]string{"from": from, "to": to}
		}
	}
	return diff
}

// newKey returns a random secret for backfeed URLs.
func newKey() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// RotateBackfeedKey gives the project a new random backfeed key: the old
// backfeed URL stops working.
func (s *Store) RotateBackfeedKey(ctx context.Context, p Project) (Project, error) {
	changed := p
	changed.Config.BackfeedKey = newKey()
	return s.update(ctx, p, changed, "project.backfeed_key", nil)
}

// MarkDeleting starts a project's deletion: from now on it is not found,
// hands out nothing, and the purge job removes its rows.
func (s *Store) MarkDeleting(ctx context.Context, p Project) error {
	changed := p
	changed.Config.Paused, changed.Config.Hidden, changed.Config.Deleting = true, true, true
	_, err := s.update(ctx, p, changed, "project.delete", map[string]any{"slug": p.Slug})
	return err
}

// CheckDeleting refuses a purge of a project that is not being deleted
// (see MarkDeleting): every package's purge checks it before it removes a
// row.
func (p Project) CheckDeleting() error {
	if !p.Config.Deleting {
		return fmt.Errorf("project %s is not being deleted", p.Slug)
	}
	return nil
}

// Purge removes a deleting project's own row, with what goes with it (a
// foreign key ON DELETE CASCADE or SET NULL: blocks, upload targets,
// archives, dictionaries, admins' grants, the audit log's mention). The
// tables that hold its items, sites, statistics and volunteers have no
// foreign key to it, and their packages purge them first (see jobs.Purge):
// the row goes last, so a purge stopped midway is still listed by
// ListDeleting and carries on.
func (s *Store) Purge(ctx context.Context, p Project) error {
	if err := p.CheckDeleting(); err != nil {
		return err
	}
	return s.q.ProjectDeleteByID(ctx, p.ID)
}
