package projects

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
	}
}
