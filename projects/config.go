package projects

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config is a project's engine and warrior settings, stored as the config
// document of its projects row. Field names are the keys operators use
// (`tracker project set SLUG KEY=VALUE`) and `tracker project show` prints.
type Config struct {
	// Paused projects hand out nothing.
	Paused bool `json:"paused"`
	// Order within a queue: "fifo" (import order) or "random".
	Order string `json:"order"`
	// MinVersion is the lowest script version served; older ones get 455.
	MinVersion string `json:"min_version"`
	// RateLimit caps items handed out per minute across all processes (0 = off).
	RateLimit int64 `json:"rate_limit"`
	// TypeLimits caps items per minute by the "type:" prefix of their names.
	TypeLimits map[string]int64 `json:"type_limits"`
	// ClaimsLimit caps the items out at once (0 = off); past it only expired
	// claims are handed out.
	ClaimsLimit int64 `json:"claims_limit"`
	// DownloaderClaimsLimit caps the items out at once per downloader (0 = off).
	DownloaderClaimsLimit int64 `json:"downloader_claims_limit"`
	// ReclaimTTL is how long, in seconds, a first claim lasts before it may be
	// handed to someone else; it is multiplied by the item's claim count
	// (0 = never reclaim).
	ReclaimTTL int64 `json:"reclaim_ttl"`
	// MaxMulti is the most items one multi={N} request gets.
	MaxMulti int `json:"max_multi"`
	// BackfeedKey is the secret in the backfeed URL /backfeed/legacy/{slug}-{key}.
	BackfeedKey string `json:"backfeed_key"`
	// Domains, when set, lists the byte-count keys a done may report.
	Domains []string `json:"domains"`
	// ArchiveAfter is the age, in seconds, at which completions leave the hot
	// tables (0 = never); ArchiveMode is "files" or "discard".
	ArchiveAfter int64  `json:"archive_after"`
	ArchiveMode  string `json:"archive_mode"`

	// The project's entry in the warriors' projects file and on the pages.
	// Hidden projects are left out of both (their leaderboard still works).
	Hidden      bool   `json:"hidden"`
	Description string `json:"description"`
	Repository  string `json:"repository"`
	Logo        string `json:"logo"`
	// MarkerHTML is shown by the warrior on its map marker: HTML, trusted
	// (only admins set it).
	MarkerHTML string `json:"marker_html"`
	// Deadline is when the site closes, DeadlineFormat in UTC; "" if unknown.
	Deadline string    `json:"deadline"`
	Host     string    `json:"host"`
	LatLng   []float64 `json:"lat_lng"`

	// Deleting marks a project an admin deleted: it is gone for every
	// route, and the purge job removes its rows in the background. Not a
	// key operators set.
	Deleting bool `json:"deleting,omitempty"`
}

// DeadlineFormat is the deadline's form in the projects file, which the
// warriors parse as exactly %Y-%m-%dT%H:%M:%SZ.
const DeadlineFormat = "2006-01-02T15:04:05Z"

// DeadlineTime is the deadline, and whether there is one.
func (c Config) DeadlineTime() (time.Time, bool) {
	t, err := time.Parse(DeadlineFormat, c.Deadline)
	return t, err == nil
}

// DefaultConfig is the configuration of a new project. Keys missing from a
// stored document keep these values, so new keys need no data migration.
func DefaultConfig() Config {
	return Config{
		Order:       "fifo",
		TypeLimits:  map[string]int64{},
		MaxMulti:    100,
		Domains:     []string{},
		ArchiveMode: "files",
		LatLng:      []float64{},
	}
}

// Keys are the configuration keys, in the order operators see them.
var Keys = []string{
	"title", "paused", "order", "min_version", "rate_limit", "type_limits",
	"claims_limit", "downloader_claims_limit", "reclaim_ttl", "max_multi",
	"backfeed_key", "domains", "archive_after", "archive_mode",
	"hidden", "description", "repository", "logo", "marker_html", "deadline", "host", "lat_lng",
}

// maxText bounds the free-text keys.
const maxText = 16 << 10

// MaxMultiLimit bounds max_multi: a request's answer must stay a sane size.
const MaxMultiLimit = 10_000

var (
	typeRE        = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)
	backfeedKeyRE = regexp.MustCompile(`^[A-Za-z0-9_]{8,128}$`)
)

// Set changes one key from its text form, as `project set` and the admin
// panel take it, and checks the result. title is not part of Config;
// Store.Set handles it.
func (c *Config) Set(key, value string) error {
	var err error
	switch key {
	case "paused":
		c.Paused, err = strconv.ParseBool(value)
	case "order":
		c.Order = value
	case "min_version":
		c.MinVersion = value
	case "rate_limit":
		c.RateLimit, err = parseCount(value)
	case "claims_limit":
		c.ClaimsLimit, err = parseCount(value)
	case "downloader_claims_limit":
		c.DownloaderClaimsLimit, err = parseCount(value)
	case "reclaim_ttl":
		c.ReclaimTTL, err = parseCount(value)
	case "archive_after":
		c.ArchiveAfter, err = parseCount(value)
	case "max_multi":
		var n int64
		n, err = parseCount(value)
		c.MaxMulti = int(min(n, MaxMultiLimit+1))
	case "archive_mode":
		c.ArchiveMode = value
	case "backfeed_key":
		c.BackfeedKey = value
	case "domains":
		c.Domains, err = parseDomains(value)
	case "type_limits":
		c.TypeLimits, err = parseTypeLimits(value)
	case "hidden":
		c.Hidden, err = strconv.ParseBool(value)
	case "description":
		c.Description = value
	case "repository":
		c.Repository, err = parseURL(value)
	case "logo":
		c.Logo, err = parseURL(value)
	case "marker_html":
		c.MarkerHTML = value
	case "host":
		c.Host = value
	case "deadline":
		c.Deadline, err = parseDeadline(value)
	case "lat_lng":
		c.LatLng, err = parseLatLng(value)
	default:
		return fmt.Errorf("unknown key %q: the keys are %s", key, strings.Join(Keys, ", "))
	}
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return c.validate()
}

// Value is a key's value in the text form Set takes: what the admin
// panel's form shows.
func (p Project) Value(key string) string {
	c := p.Config
	switch key {
	case "title":
		return p.Title
	case "paused":
		return strconv.FormatBool(c.Paused)
	case "order":
		return c.Order
	case "min_version":
		return c.MinVersion
	case "rate_limit":
		return strconv.FormatInt(c.RateLimit, 10)
	case "type_limits":
		var parts []string
		for _, t := range c.LimitedTypes() {
			parts = append(parts, fmt.Sprintf("%s:%d", t, c.TypeLimits[t]))
		}
		return strings.Join(parts, ",")
	case "claims_limit":
		return strconv.FormatInt(c.ClaimsLimit, 10)
	case "downloader_claims_limit":
		return strconv.FormatInt(c.DownloaderClaimsLimit, 10)
	case "reclaim_ttl":
		return strconv.FormatInt(c.ReclaimTTL, 10)
	case "max_multi":
		return strconv.Itoa(c.MaxMulti)
	case "backfeed_key":
		return c.BackfeedKey
	case "domains":
		return strings.Join(c.Domains, ",")
	case "archive_after":
		return strconv.FormatInt(c.ArchiveAfter, 10)
	case "archive_mode":
		return c.ArchiveMode
	case "hidden":
		return strconv.FormatBool(c.Hidden)
	case "description":
		return c.Description
	case "repository":
		return c.Repository
	case "logo":
		return c.Logo
	case "marker_html":
		return c.MarkerHTML
	case "deadline":
		return c.Deadline
	case "host":
		return c.Host
	case "lat_lng":
		if len(c.LatLng) == 2 {
			return strconv.FormatFloat(c.LatLng[0], 'f', -1, 64) + "," + strconv.FormatFloat(c.LatLng[1], 'f', -1, 64)
		}
	}
	return ""
}

func parseCount(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a whole number of 0 or more", s)
	}
	return n, nil
}

// parseDomains reads "data,media" (empty: any domain).
func parseDomains(s string) ([]string, error) {
	domains := []string{}
	for d := range strings.SplitSeq(s, ",") {
		d = strings.TrimSpace(d)
		if d == "" {
			continue
		}
		if len(d) > 255 || strings.ContainsAny(d, "\x00") {
			return nil, fmt.Errorf("invalid domain %q", d)
		}
		if !slices.Contains(domains, d) {
			domains = append(domains, d)
		}
	}
	return domains, nil
}

// parseURL accepts "" or an absolute http(s) URL: pages link to it.
func parseURL(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an http(s) URL", s)
	}
	return s, nil
}

// parseDeadline accepts "", the projects file's form, or RFC 3339 with any
// zone, and keeps it in the projects file's form.
func parseDeadline(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return "", fmt.Errorf("%q: write 2026-12-31T23:59:59Z", s)
	}
	return t.UTC().Format(DeadlineFormat), nil
}

// parseLatLng reads "51.5,-0.12" (empty: none).
func parseLatLng(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return []float64{}, nil
	}
	lat, lng, ok := strings.Cut(s, ",")
	la, err1 := strconv.ParseFloat(strings.TrimSpace(lat), 64)
	ln, err2 := strconv.ParseFloat(strings.TrimSpace(lng), 64)
	if !ok || err1 != nil || err2 != nil || la < -90 || la > 90 || ln < -180 || ln > 180 {
		return nil, fmt.Errorf("%q: write LATITUDE,LONGITUDE such as 51.5,-0.12", s)
	}
	return []float64{la, ln}, nil
}

// parseTypeLimits reads "post:600,user:60" (empty: none).
func parseTypeLimits(s string) (map[string]int64, error) {
	limits := map[string]int64{}
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		typ, n, ok := strings.Cut(part, ":")
		if !ok || !typeRE.MatchString(typ) {
			return nil, fmt.Errorf("%q: write TYPE:ITEMS_PER_MINUTE", part)
		}
		v, err := strconv.ParseInt(n, 10, 64)
		if err != nil || v < 1 {
			return nil, fmt.Errorf("%q: the limit must be a whole number of 1 or more", part)
		}
		limits[typ] = v
	}
	return limits, nil
}

// validate checks the values: a known order and archive mode, a sane
// max_multi, a backfeed key fit for a URL.
func (c Config) validate() error {
	switch {
	case c.Order != "fifo" && c.Order != "random":
		return fmt.Errorf("order: %q is neither fifo nor random", c.Order)
	case c.ArchiveMode != "files" && c.ArchiveMode != "discard":
		return fmt.Errorf("archive_mode: %q is neither files nor discard", c.ArchiveMode)
	case c.MaxMulti < 1 || c.MaxMulti > MaxMultiLimit:
		return fmt.Errorf("max_multi: must be between 1 and %d", MaxMultiLimit)
	case !backfeedKeyRE.MatchString(c.BackfeedKey):
		return errors.New("backfeed_key: 8-128 letters, digits and '_'")
	case len(c.MinVersion) > 64:
		return errors.New("min_version: longer than 64 characters")
	case len(c.Description) > maxText || len(c.MarkerHTML) > maxText || len(c.Host) > 255:
		return fmt.Errorf("description and marker_html: at most %d bytes; host: 255", maxText)
	}
	return nil
}

// LimitedTypes are the types with a per-type limit, sorted; never nil, as
// a nil slice reaches SQL as NULL, where "x <> ALL(NULL)" matches nothing.
func (c Config) LimitedTypes() []string {
	return append([]string{}, slices.Sorted(maps.Keys(c.TypeLimits))...)
}

// AcceptsDomains says whether a done's byte counts may enter the stats.
func (c Config) AcceptsDomains(bytes map[string]int64) bool {
	if len(c.Domains) == 0 {
		return true
	}
	for d := range bytes {
		if !slices.Contains(c.Domains, d) {
			return false
		}
	}
	return true
}
