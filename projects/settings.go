package projects

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

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

// SettingKeys are the settings' keys.
var SettingKeys = []string{"seesaw_version", "auto_project", "broadcast_message", "tracker_banner_html"}

func (s *Settings) set(key, value string) error {
	if len(value) > maxText {
		return fmt.Errorf("%s: at most %d bytes", key, maxText)
	}
	switch key {
	case "seesaw_version":
		s.SeesawVersion = value
	case "auto_project":
		if value != "" {
			if err := ValidSlug(value); err != nil {
				return fmt.Errorf("auto_project: %w", err)
			}
		}
		s.AutoProject = value
	case "broadcast_message":
		s.BroadcastMessage = value
	case "tracker_banner_html":
		s.BannerHTML = value
	default:
		return fmt.Errorf("unknown setting %q: the settings are %s", key, strings.Join(SettingKeys, ", "))
	}
	return nil
}

// Settings reads the tracker-wide settings.
func (s *Store) Settings(ctx context.Context) (Settings, error) {
	var out Settings
	rows, err := s.q.SettingsAll(ctx)
	if err != nil {
		return out, err
	}
	for _, r := range rows {
		_ = out.set(r.Key, r.Value) // keys no longer known are ignored
	}
	return out, nil
}

// SetSettings changes settings from KEY=VALUE assignments, all or none.
func (s *Store) SetSettings(ctx context.Context, assignments []string) (Settings, error) {
	cur, err := s.Settings(ctx)
	if err != nil {
		return cur, err
	}
	changed := map[string]string{}
	for _, a := range assignments {
		key, value, ok := strings.Cut(a, "=")
		if !ok {
			return cur, fmt.Errorf("%q: write KEY=VALUE", a)
		}
		if err := cur.set(key, value); err != nil {
			return cur, err
		}
		changed[key] = value
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		q := s.q.WithTx(tx)
		for k, v := range changed {
			if err := q.SettingPut(ctx, db.SettingPutParams{Key: k, Value: v}); err != nil {
				return err
			}
		}
		return nil
	})
	return cur, err
}
