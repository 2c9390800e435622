package projects

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/jackc/pgx/v5"

	"tracker/audit"
	"tracker/db"
)

// Settings are the tracker-wide fields of the warriors' projects file and
// of the pages.
type Settings struct {
	// SeesawVersion is the lowest warrior version: older warriors update
	// themselves.
	SeesawVersion string `json:"seesaw_version"`
	// AutoProject is the priority list warriors set to "auto" work on
	// (AutoProjects), as stored: slugs joined by ", " ("" for none). The
	// projects file names one of them (Store.AutoChoice).
	AutoProject string `json:"auto_project"`
	// AutoRefill is how many items a project of the list ahead of the
	// chosen one must have queued to be chosen again, once it ran dry.
	AutoRefill int64 `json:"auto_project_refill,string"`
	// BroadcastMessage is HTML the warriors show their users.
	BroadcastMessage string `json:"broadcast_message"`
	// BannerHTML is shown at the top of every page and in the projects file.
	BannerHTML string `json:"tracker_banner_html"`
}

// strictVersionRE is the form of distutils' StrictVersion, which the
// warriors compare seesaw_version with: anything else crashes them.
var strictVersionRE = regexp.MustCompile(`^[0-9]+\.[0-9]+(\.[0-9]+)?([ab][0-9]+)?$`)

// DefaultSeesawVersion is the seesaw_version of a tracker that sets none.
const DefaultSeesawVersion = "0.8.5"

// DefaultAutoRefill is the auto_project_refill of a tracker that sets
// none.
const DefaultAutoRefill = 100

// MaxAutoProjects bounds the auto_project list: each entry costs a
// project's counters read when the choice is made.
const MaxAutoProjects = 20

// AutoProjects is the auto_project list, highest priority first.
func (s Settings) AutoProjects() []string {
	if s.AutoProject == "" {
		return nil
	}
	return strings.Split(s.AutoProject, ", ")
}

// parseAutoProjects reads an auto_project list: slugs separated by commas
// or spaces, each once, at most MaxAutoProjects; it returns the list as
// stored.
func parseAutoProjects(v string) (string, error) {
	slugs := strings.FieldsFunc(v, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	if len(slugs) > MaxAutoProjects {
		return "", fmt.Errorf("%d projects: at most %d", len(slugs), MaxAutoProjects)
	}
	for i, slug := range slugs {
		if err := ValidSlug(slug); err != nil {
			return "", err
		}
		if slices.Contains(slugs[:i], slug) {
			return "", fmt.Errorf("%q is listed twice", slug)
		}
	}
	return strings.Join(slugs, ", "), nil
}

// SettingKeys are the tracker-wide settings, the one table `settings set`
// and the admin panel's settings page read.
var SettingKeys = []Key[Settings]{
	{Name: "seesaw_version", Label: "Lowest seesaw version", Input: InputText,
		Help: "The lowest seesaw version a warrior may run; older warriors update themselves. N.N or N.N.N, such as 0.8.5.",
		set: func(s *Settings, v string) error {
			if !strictVersionRE.MatchString(v) {
				return fmt.Errorf("%q is not a version such as 0.8.5 (the warriors compare it as a StrictVersion)", v)
			}
			s.SeesawVersion = v
			return nil
		},
		get: func(s Settings) string { return s.SeesawVersion }},
	{Name: "auto_project", Label: "Auto projects", Input: InputList,
		Help: "The projects warriors set to \"auto\" work on, highest priority first (slugs separated by commas). " +
			"They are sent to the first that has items queued and is neither paused, finished nor hidden, " +
			"decided at most once a minute; they leave one that ran dry for the next, and come back to it once it has auto_project_refill items queued. Empty: none.",
		set: func(s *Settings, v string) error {
			list, err := parseAutoProjects(v)
			if err != nil {
				return err
			}
			s.AutoProject = list
			return nil
		},
		get: func(s Settings) string { return s.AutoProject }},
	count(Key[Settings]{Name: "auto_project_refill", Label: "Auto project refill", Unit: "items",
		Help: "How many items a project of the auto projects ahead of the one chosen must have queued to be chosen again after it ran dry."},
		func(s *Settings) *int64 { return &s.AutoRefill }, Range{Max: maxItems}),
	{Name: "broadcast_message", Label: "Broadcast message", Input: InputHTML,
		Help: "HTML every warrior shows its user.",
		set:  func(s *Settings, v string) error { return setText(&s.BroadcastMessage, v, MaxText) },
		get:  func(s Settings) string { return s.BroadcastMessage }},
	{Name: "tracker_banner_html", Label: "Banner", Input: InputHTML,
		Help: "HTML shown at the top of every page and in the warriors' project list.",
		set:  func(s *Settings, v string) error { return setText(&s.BannerHTML, v, MaxText) },
		get:  func(s Settings) string { return s.BannerHTML }},
}

// Settings reads the tracker-wide settings.
func (s *Store) Settings(ctx context.Context) (Settings, error) {
	return settingsOf(ctx, s.q)
}

// settingsOf is Settings read through q: in a transaction of the caller's.
func settingsOf(ctx context.Context, q *db.Queries) (Settings, error) {
	out := Settings{SeesawVersion: DefaultSeesawVersion, AutoRefill: DefaultAutoRefill}
	rows, err := q.SettingsAll(ctx)
	if err != nil {
		return out, err
	}
	for _, r := range rows {
		// Keys no longer known, and values a newer rule refuses, are
		// ignored: the default stands.
		if k, err := lookup(SettingKeys, r.Key, "setting"); err == nil {
			_ = k.Set(&out, r.Value)
		}
	}
	return out, nil
}

// SetSettings changes settings from KEY=VALUE assignments, all or none.
func (s *Store) SetSettings(ctx context.Context, assignments []string) (Settings, error) {
	cur, err := s.Settings(ctx)
	if err != nil {
		return cur, err
	}
	old := cur
	if err := apply(SettingKeys, &cur, assignments, "setting"); err != nil {
		return cur, err
	}
	// The record says what changed, key by key, as a project's does.
	diff := map[string]any{}
	for _, k := range SettingKeys {
		if from, to := k.Value(old), k.Value(cur); from != to {
			diff[k.Name] = map[string]string{"from": from, "to": to}
		}
	}
	// Stored as read back (a list in its one form): the auto project's
	// choice compares the list it was made from with it.
	changed := map[string]string{}
	for _, a := range assignments {
		key, _, _ := strings.Cut(a, "=")
		k, err := lookup(SettingKeys, key, "setting")
		if err != nil {
			return cur, err
		}
		changed[key] = k.Value(cur)
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		q := db.Of(tx)
		for k, v := range changed {
			if err := q.SettingPut(ctx, db.SettingPutParams{Key: k, Value: v}); err != nil {
				return err
			}
		}
		return audit.Record(ctx, q, "settings", 0, diff)
	})
	return cur, err
}
