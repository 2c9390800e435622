package projects

import (
	"context"
	"fmt"
	"regexp"
	"strings"

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
	// AutoProject is the slug warriors set to "auto" work on ("" for none).
	AutoProject string `json:"auto_project"`
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
	{Name: "auto_project", Label: "Auto project", Input: InputText,
		Help: "The project warriors set to \"auto\" work on. Empty: none.",
		set: func(s *Settings, v string) error {
			if v != "" {
				if err := ValidSlug(v); err != nil {
					return err
				}
			}
			s.AutoProject = v
			return nil
		},
		get: func(s Settings) string { return s.AutoProject }},
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
	out := Settings{SeesawVersion: DefaultSeesawVersion}
	rows, err := s.q.SettingsAll(ctx)
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
	changed := map[string]string{}
	for _, a := range assignments {
		key, value, _ := strings.Cut(a, "=")
		changed[key] = value
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		q := s.q.WithTx(tx)
		for k, v := range changed {
			if err := q.SettingPut(ctx, db.SettingPutParams{Key: k, Value: v}); err != nil {
				return err
			}
		}
		return audit.Record(ctx, q, "settings", 0, diff)
	})
	return cur, err
}
