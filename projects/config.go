package projects

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"tracker/sites"
)

// Config is a project's engine and warrior settings, stored as the config
// document of its projects row. Field names are the keys operators use
// (`tracker project set SLUG KEY=VALUE`) and `tracker project show` prints.
type Config struct {
	// Paused projects hand out nothing.
	Paused bool `json:"paused"`
	// Finished projects are over: they hand out nothing and leave the
	// warriors' project list, so warriors move on by themselves.
	Finished bool `json:"finished"`
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
	// MaxClaims is how many times an item is handed out before it fails: a
	// claim of it expiring after that many goes to the error queue instead
	// of back into circulation (0 = never fail).
	MaxClaims int64 `json:"max_claims"`
	// ExpiredClaimsLimit refuses a downloader whose claims expired that many
	// times in the last hour (0 = off): a warrior the site turned away claims
	// and drops items at full speed.
	ExpiredClaimsLimit int64 `json:"expired_claims_limit"`
	// ClaimerNetwork completes or releases a claim only for a done or
	// release from the network the claim was made from (an IPv4 address's
	// /24, an IPv6 address's /48): a nick is anyone's to send, and the
	// pages show every downloader's. Off, such dones and releases are
	// taken, and counted all the same, so the share a switch would refuse
	// shows before it is made.
	ClaimerNetwork bool `json:"claimer_network"`
	// MaxMulti is the most items one multi={N} request gets.
	MaxMulti int64 `json:"max_multi"`
	// Mode is "once" (a done finishes an item) or "recurring" (a done
	// schedules the item's next visit RevisitAfter seconds on, and the
	// visit's outcome multiplies its score by ScoreNone, ScoreSome or
	// ScoreFull; due items are handed out highest score first, and an item
	// whose score falls below RetireBelow retires).
	Mode         string  `json:"mode"`
	RevisitAfter int64   `json:"revisit_after"`
	ScoreNone    float64 `json:"score_none"`
	ScoreSome    float64 `json:"score_some"`
	ScoreFull    float64 `json:"score_full"`
	RetireBelow  float64 `json:"retire_below"`
	// SiteKey is what an item's site is (see package sites): "off", "host"
	// or "registrable" (the registrable domain). Items with a site are
	// handed out at most SiteClaimsLimit at once per site (0: no limit) and
	// SiteInterval seconds apart per site; with SiteAffinity a site's items
	// go only to the downloader holding items of it, and a site holding
	// none to the requesting downloader that holds the fewest sites.
	SiteKey         sites.Key `json:"site_key"`
	SiteClaimsLimit int64     `json:"site_claims_limit"`
	SiteInterval    int64     `json:"site_interval"`
	SiteAffinity    bool      `json:"site_affinity"`
	// RecrawlAfter, when not 0, queues a name backfed again once its last
	// hand-out is that many seconds old, or at once when it comes with
	// another update tag (tag= in its context).
	RecrawlAfter int64 `json:"recrawl_after"`
	// BackfeedKey is the secret in the backfeed URL /backfeed/legacy/{slug}-{key}.
	BackfeedKey string `json:"backfeed_key"`
	// Domains, when set, lists the byte-count keys a done may report.
	Domains []string `json:"domains"`
	// ArchiveAfter is the age, in seconds, at which completions leave the hot
	// tables (0 = never); ArchiveMode is "files" or "discard".
	ArchiveAfter int64  `json:"archive_after"`
	ArchiveMode  string `json:"archive_mode"`

	// PublicItems shows everyone what the item lookups show the project's
	// admins: who holds or did an item, its parameters and its result.
	// Off, a stranger cannot read there who holds an item, nor what the
	// project may not publish; the nicks themselves are on the pages, so
	// only ClaimerNetwork keeps a stranger from completing or releasing a
	// claim by naming its holder.
	PublicItems bool `json:"public_items"`

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
	// FilesPerItem is how many files the project's pipeline uploads per
	// item: warriors upload to an http(s) target only an item of one file.
	FilesPerItem int64 `json:"files_per_item"`

	// Deleting marks a project an admin deleted: it is gone for every
	// route, and the purge job removes its rows in the background. Not a
	// key operators set.
	Deleting bool `json:"deleting,omitempty"`
}

// Listed says whether the project is in the warriors' project list
// (/projects.json): neither hidden nor finished.
func (c Config) Listed() bool { return !c.Hidden && !c.Finished }

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
		SiteKey:     sites.KeyOff,
		TypeLimits:  map[string]int64{},
		MaxMulti:    100,
		Domains:     []string{},
		ArchiveMode: "files",
		LatLng:      []float64{},
		// Most pipelines upload one file (a WARC) per item.
		FilesPerItem: 1,
		// The torrent scorer's: no peers halves the score, some peers take
		// a fifth off, a full swarm adds a fifth; below 0.5^8 the item
		// retires.
		Mode:         ModeOnce,
		RevisitAfter: 86400,
		ScoreNone:    0.5,
		ScoreSome:    0.8,
		ScoreFull:    1.2,
		RetireBelow:  0.005,
	}
}

// Sited says whether the project's items have sites.
func (c Config) Sited() bool { return c.SiteKey != "" && c.SiteKey != sites.KeyOff }

// The modes of a project.
const (
	ModeOnce      = "once"
	ModeRecurring = "recurring"
)

// Recurring says whether a done schedules the item's next visit.
func (c Config) Recurring() bool { return c.Mode == ModeRecurring }

// Outcome is the factor a visit's reported outcome multiplies the item's
// score by: "none", "some" or "full" (the project's factors), or a number,
// clamped to the span of the project's factors: a visit reported by a
// number moves a score no further than one reported by a word, so one
// visit can neither retire an item nor pin it at the top. Clamped rather
// than refused: the warrior retries a refused done forever.
func (c Config) Outcome(word string, number float64) (float64, error) {
	switch word {
	case "none":
		return c.ScoreNone, nil
	case "some":
		return c.ScoreSome, nil
	case "full":
		return c.ScoreFull, nil
	case "":
		lo, hi := min(c.ScoreNone, c.ScoreSome, c.ScoreFull), max(c.ScoreNone, c.ScoreSome, c.ScoreFull)
		return min(max(number, lo), hi), nil
	}
	return 0, fmt.Errorf("outcome %q: none, some, full or a number", word)
}

// MinFactor and MaxFactor bound a score factor; the engine keeps scores
// between 1e-200 and 1e200 besides, so no run of visits takes one to zero
// or infinity.
const (
	MinFactor = 1e-6
	MaxFactor = 100
)

// MaxMultiLimit bounds max_multi and the N a warrior path's multi={N} may
// name (a larger N is refused): a request's answer must stay a sane size.
const MaxMultiLimit = 10_000

var (
	typeRE        = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)
	backfeedKeyRE = regexp.MustCompile(`^[A-Za-z0-9_]{8,128}$`)
)

// Keys are a project's configuration keys, in the order operators see
// them: the one table `project set`, `project show` and the admin panel
// read.
var Keys = []Key[Project]{
	{Name: "title", Label: "Title", Section: SectionWarriors, Input: InputText,
		Help: "The project's name on the pages and in the warriors' project list; the slug when empty.",
		set:  func(p *Project, s string) error { return setText(&p.Title, s, MaxTitle) },
		get:  func(p Project) string { return p.Title }},
	{Name: "paused", Label: "Paused", Section: SectionQueues, Input: InputBool,
		Help: "A paused project hands out no items; completions and backfeed are still taken.",
		set:  setBool(func(c *Config) *bool { return &c.Paused }), get: getBool(func(c *Config) *bool { return &c.Paused })},
	{Name: "order", Label: "Order within a queue", Section: SectionQueues, Input: InputChoice, Choices: []string{"fifo", "random"},
		Help: "The order within a queue: fifo hands items out in the order they were added, random in any order.",
		set:  setChoice(func(c *Config) *string { return &c.Order }, "fifo", "random"),
		get:  func(p Project) string { return p.Config.Order }},
	count(Key[Project]{Name: "max_multi", Label: "Most items per multi request", Section: SectionQueues, Unit: "items",
		Help: "The most items one multi={N} request gets."},
		func(p *Project) *int64 { return &p.Config.MaxMulti }, Range{Min: 1, Max: MaxMultiLimit}),
	{Name: "backfeed_key", Label: "Backfeed key", Section: SectionQueues, Input: InputText,
		Help: "The secret in the backfeed URL /backfeed/legacy/SLUG-KEY: 8-128 letters, digits and '_'. Changing it stops the old URL.",
		set: func(p *Project, s string) error {
			if !backfeedKeyRE.MatchString(s) {
				return errors.New("8-128 letters, digits and '_'")
			}
			p.Config.BackfeedKey = s
			return nil
		},
		get: func(p Project) string { return p.Config.BackfeedKey }},
	count(Key[Project]{Name: "reclaim_ttl", Label: "Claims expire after", Section: SectionClaims, Unit: "seconds",
		Help: "How long a first claim lasts before the reclaim job hands the item to someone else; multiplied by the times it was handed out."},
		func(p *Project) *int64 { return &p.Config.ReclaimTTL }, Range{Max: maxSeconds, Zero: "never"}),
	count(Key[Project]{Name: "claims_limit", Label: "Items out at once", Section: SectionClaims, Unit: "items",
		Help: "The most items out at once across every warrior; past it only expired claims are handed out."},
		func(p *Project) *int64 { return &p.Config.ClaimsLimit }, Range{Max: maxItems, Zero: "no limit"}),
	count(Key[Project]{Name: "downloader_claims_limit", Label: "Items out per downloader", Section: SectionClaims, Unit: "items",
		Help: "The most items one downloader holds at once."},
		func(p *Project) *int64 { return &p.Config.DownloaderClaimsLimit }, Range{Max: maxItems, Zero: "no limit"}),
	count(Key[Project]{Name: "max_claims", Label: "Hand-outs before an item fails", Section: SectionClaims, Unit: "claims",
		Help: "When a claim expires after the item was handed out this many times, the item goes to the error queue instead of back into circulation, with the history of its claims. Needs claims to expire."},
		func(p *Project) *int64 { return &p.Config.MaxClaims }, Range{Max: maxMaxClaims, Zero: "items never fail"}),
	count(Key[Project]{Name: "expired_claims_limit", Label: "Expired claims per downloader an hour", Section: SectionClaims, Unit: "claims",
		Help: "A downloader whose claims expired this many times in the last hour gets no items (429 too-many-expired) until fewer did: a warrior the site turned away claims and drops items at full speed."},
		func(p *Project) *int64 { return &p.Config.ExpiredClaimsLimit }, Range{Max: maxItems, Zero: "no limit"}),
	{Name: "claimer_network", Label: "Done and release only from the claim's network", Section: SectionClaims, Input: InputBool,
		Help: "A done or a release counts only from the network the claim was made from (the claimer's IPv4 /24, IPv6 /48): a stranger who names a holder's nick (the leaderboard shows them all) completes or releases nothing. A done from elsewhere is answered OK and completes nothing, as a done of an item not held: the claim runs out and the item is done again. Off, such dones and releases are taken; either way they are counted (tracker_project_other_network_total in /metrics), so measure the share before switching it on.",
		set:  setBool(func(c *Config) *bool { return &c.ClaimerNetwork }), get: getBool(func(c *Config) *bool { return &c.ClaimerNetwork })},
	{Name: "min_version", Label: "Lowest script version", Section: SectionLimits, Input: InputText,
		Help: "The lowest grab-script version served (compared number by number); older scripts are told to update (455). Empty: any.",
		set:  func(p *Project, s string) error { return setText(&p.Config.MinVersion, s, MaxMinVersion) },
		get:  func(p Project) string { return p.Config.MinVersion }},
	count(Key[Project]{Name: "rate_limit", Label: "Rate limit", Section: SectionLimits, Unit: "items a minute",
		Help: "Items handed out per minute across every tracker process, spread evenly."},
		func(p *Project) *int64 { return &p.Config.RateLimit }, Range{Max: maxItems, Zero: "no limit"}),
	{Name: "type_limits", Label: "Limits by item type", Section: SectionLimits, Input: InputList,
		Help: "Items per minute by the type prefix of their names, as TYPE:N,TYPE:N (post:600,user:60), N from 1 to 1000000000. Empty: none.",
		set: func(p *Project, s string) error {
			var err error
			p.Config.TypeLimits, err = parseTypeLimits(s)
			return err
		},
		get: func(p Project) string {
			var parts []string
			for _, t := range p.Config.LimitedTypes() {
				parts = append(parts, fmt.Sprintf("%s:%d", t, p.Config.TypeLimits[t]))
			}
			return strings.Join(parts, ",")
		}},
	{Name: "site_key", Label: "Sites", Section: SectionLimits, Input: InputChoice, Choices: []string{string(sites.KeyOff), string(sites.KeyHost), string(sites.KeyRegistrable)},
		Help: "What an item's site is, found from its name when it is queued (https://…, url:https://…, custom:…url=…): host, registrable (the registrable domain, by the public suffix list) or off. Items with a site are handed out by site, politely (site_claims_limit, site_interval, site_affinity); names that are no URL have none. Not together with type_limits.",
		set: func(p *Project, s string) error {
			for _, k := range sites.Keys {
				if s == string(k) {
					p.Config.SiteKey = k
					return nil
				}
			}
			return fmt.Errorf("%q: choose off or host or registrable", s)
		},
		get: func(p Project) string { return string(p.Config.SiteKey) }},
	count(Key[Project]{Name: "site_claims_limit", Label: "Items out per site", Section: SectionLimits, Unit: "items",
		Help: "The most items of one site out at once, across every warrior and tracker process."},
		func(p *Project) *int64 { return &p.Config.SiteClaimsLimit }, Range{Max: maxSiteClaimsLimit, Zero: "no limit"}),
	count(Key[Project]{Name: "site_interval", Label: "Time between hand-outs of a site", Section: SectionLimits, Unit: "seconds",
		Help: "The least time between two hand-outs of one site; a multi request may take several items of a due site at once, up to its limit."},
		func(p *Project) *int64 { return &p.Config.SiteInterval }, Range{Max: maxSiteInterval, Zero: "none"}),
	{Name: "site_affinity", Label: "One downloader per site", Section: SectionLimits, Input: InputBool,
		Help: "While a site has items out, its other items go only to the downloader holding them; a site with none out goes to the requesting downloader holding the fewest sites. A reclaim or release frees the site.",
		set:  setBool(func(c *Config) *bool { return &c.SiteAffinity }), get: getBool(func(c *Config) *bool { return &c.SiteAffinity })},
	count(Key[Project]{Name: "recrawl_after", Mode: ModeOnce, Label: "Queue a name backfed again after", Section: SectionQueues, Unit: "seconds",
		Help: "A name backfed again is a duplicate while its last hand-out is younger than this, and is queued again once older; backfed with another update tag (tag=… in its context) it is queued again at once."},
		func(p *Project) *int64 { return &p.Config.RecrawlAfter }, Range{Max: maxRecrawlAfter, Zero: "a name seen is always a duplicate"}),
	{Name: "domains", Label: "Byte-count domains", Section: SectionLimits, Input: InputList,
		Help: "The byte-count keys a done is counted under (data,media). A done naming a key not listed still completes its items, but none of its bytes enter the stats (the tracker logs it). Empty: every key counts, a key that is no host-like name (1-63 lowercase letters, digits, '-', '.', '_') being summed under other. The stats keep the 100 domains with the most bytes apart and sum the rest under other.",
		set: func(p *Project, s string) error {
			var err error
			p.Config.Domains, err = parseDomains(s)
			return err
		},
		get: func(p Project) string { return strings.Join(p.Config.Domains, ",") }},
	{Name: "hidden", Label: "Hidden", Section: SectionWarriors, Input: InputBool, GlobalOnly: true,
		Help: "Leave the project out of the home page and the warriors' project list (its leaderboard still works).",
		set:  setBool(func(c *Config) *bool { return &c.Hidden }), get: getBool(func(c *Config) *bool { return &c.Hidden })},
	{Name: "finished", Label: "Finished", Section: SectionWarriors, Input: InputBool, GlobalOnly: true,
		Help: "The project is over (done, paused for good, archived): it leaves the warriors' project list and is never their auto project, so a warrior running it stops at its next update and one on auto moves to the auto project; requests get 404 finished; what warriors still report (completions, releases, uploads, backfeed) is taken, and its pages stay.",
		set:  setBool(func(c *Config) *bool { return &c.Finished }), get: getBool(func(c *Config) *bool { return &c.Finished })},
	{Name: "public_items", Label: "Item details public", Section: SectionWarriors, Input: InputBool,
		Help: "Show everyone who holds or did an item, the nicks of its claims that ran out, its parameters and its result in the item lookups (the leaderboard's and /SLUG/items/NAME.json); off, only the project's admins see them there. The nicks themselves stay public (the leaderboard, stats.json, the live log), so a stranger may still guess an item's holder: claimer_network is what refuses a done or release from another network than the claim's.",
		set:  setBool(func(c *Config) *bool { return &c.PublicItems }), get: getBool(func(c *Config) *bool { return &c.PublicItems })},
	{Name: "description", Label: "Description", Section: SectionWarriors, Input: InputHTML, GlobalOnly: true,
		Help: "HTML the warrior shows for the project. Trusted: every warrior's web interface shows it as it is.",
		set:  func(p *Project, s string) error { return setText(&p.Config.Description, s, MaxText) },
		get:  func(p Project) string { return p.Config.Description }},
	{Name: "marker_html", Label: "Map marker", Section: SectionWarriors, Input: InputHTML, GlobalOnly: true,
		Help: "HTML the warrior shows on the project's map marker. Trusted, like the description.",
		set:  func(p *Project, s string) error { return setText(&p.Config.MarkerHTML, s, MaxText) },
		get:  func(p Project) string { return p.Config.MarkerHTML }},
	{Name: "repository", Label: "Repository", Section: SectionWarriors, Input: InputURL,
		Help: "The git repository of the grab script the warriors run.",
		set:  setURL(func(c *Config) *string { return &c.Repository }), get: func(p Project) string { return p.Config.Repository }},
	{Name: "logo", Label: "Logo", Section: SectionWarriors, Input: InputURL,
		Help: "An image URL the warrior shows beside the project.",
		set:  setURL(func(c *Config) *string { return &c.Logo }), get: func(p Project) string { return p.Config.Logo }},
	{Name: "deadline", Label: "Deadline", Section: SectionWarriors, Input: InputDateTime,
		Help: "When the site closes, in UTC: the warriors count down to it and the leaderboard projects whether the project finishes in time. Empty: unknown.",
		set: func(p *Project, s string) error {
			var err error
			p.Config.Deadline, err = parseDeadline(s)
			return err
		},
		get: func(p Project) string { return p.Config.Deadline }},
	{Name: "host", Label: "Host", Section: SectionWarriors, Input: InputText,
		Help: "The site's host name, shown by the warrior.",
		set:  func(p *Project, s string) error { return setText(&p.Config.Host, s, MaxHost) },
		get:  func(p Project) string { return p.Config.Host }},
	{Name: "lat_lng", Label: "Place on the map", Section: SectionWarriors, Input: InputText,
		Help: "Where the warrior's map puts the project: LATITUDE,LONGITUDE such as 51.5,-0.12. Empty: nowhere.",
		set: func(p *Project, s string) error {
			var err error
			p.Config.LatLng, err = parseLatLng(s)
			return err
		},
		get: func(p Project) string {
			if ll := p.Config.LatLng; len(ll) == 2 {
				return strconv.FormatFloat(ll[0], 'f', -1, 64) + "," + strconv.FormatFloat(ll[1], 'f', -1, 64)
			}
			return ""
		}},
	count(Key[Project]{Name: "files_per_item", Label: "Files uploaded per item", Section: SectionWarriors, Unit: "files",
		Help: "How many files the project's pipeline uploads per item (the files of its UploadWithTracker). Warriors upload to an http(s) target only an item of exactly one file; with more, only rsync targets work, and the upload targets below say so when http(s) ones are on."},
		func(p *Project) *int64 { return &p.Config.FilesPerItem }, Range{Min: 1, Max: maxFilesPerItem}),
	count(Key[Project]{Name: "archive_after", Label: "Archive after", Section: SectionArchive, Unit: "seconds",
		Help: "The age at which the archive job moves completions out of the hot tables, a whole day at a time."},
		func(p *Project) *int64 { return &p.Config.ArchiveAfter }, Range{Max: maxSeconds, Zero: "never"}),
	{Name: "mode", Label: "Mode", Section: SectionQueues, Input: InputChoice, Choices: []string{ModeOnce, ModeRecurring},
		Help: "once: a done finishes the item. recurring: a done schedules the item's next visit (revisit_after), the visit's outcome adapts its score, due items go out highest score first, and an item whose score falls below retire_below retires. The panel shows the visits' settings once the mode is recurring, and recrawl_after only while it is once.",
		set:  setChoice(func(c *Config) *string { return &c.Mode }, ModeOnce, ModeRecurring),
		get:  func(p Project) string { return p.Config.Mode }},
	count(Key[Project]{Name: "revisit_after", Mode: ModeRecurring, Label: "Visit again after", Section: SectionQueues, Unit: "seconds",
		Help: "In a recurring project, how long after a done the item is due again."},
		func(p *Project) *int64 { return &p.Config.RevisitAfter }, Range{Min: 1, Max: maxSeconds}),
	{Name: "score_none", Mode: ModeRecurring, Label: "Score factor: nothing found", Section: SectionQueues, Input: InputText,
		Help: "What a visit reporting the outcome \"none\" multiplies the item's score by (the score starts at 1).",
		set:  setFactor(func(c *Config) *float64 { return &c.ScoreNone }), get: getFactor(func(c *Config) *float64 { return &c.ScoreNone })},
	{Name: "score_some", Mode: ModeRecurring, Label: "Score factor: something found", Section: SectionQueues, Input: InputText,
		Help: "What a visit reporting the outcome \"some\" multiplies the item's score by.",
		set:  setFactor(func(c *Config) *float64 { return &c.ScoreSome }), get: getFactor(func(c *Config) *float64 { return &c.ScoreSome })},
	{Name: "score_full", Mode: ModeRecurring, Label: "Score factor: everything found", Section: SectionQueues, Input: InputText,
		Help: "What a visit reporting the outcome \"full\" multiplies the item's score by.",
		set:  setFactor(func(c *Config) *float64 { return &c.ScoreFull }), get: getFactor(func(c *Config) *float64 { return &c.ScoreFull })},
	{Name: "retire_below", Mode: ModeRecurring, Label: "Retire below the score", Section: SectionQueues, Input: InputText,
		Help: "An item whose score falls below this retires: it is listed (the queue retired) and visited no more until an admin revives it.",
		set: func(p *Project, s string) error {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(f) || f < 0 || f >= 1 {
				return fmt.Errorf("%q: a number from 0 up to 1", s)
			}
			p.Config.RetireBelow = f
			return nil
		},
		get: getFactor(func(c *Config) *float64 { return &c.RetireBelow })},
	{Name: "archive_mode", Label: "Archive mode", Section: SectionArchive, Input: InputChoice, Choices: []string{"files", "discard"},
		Help: "files writes archived completions to compressed files the tracker can still look items up in; discard keeps only the counts.",
		set:  setChoice(func(c *Config) *string { return &c.ArchiveMode }, "files", "discard"),
		get:  func(p Project) string { return p.Config.ArchiveMode }},
}

// KeyNamed finds a project key.
func KeyNamed(name string) (Key[Project], error) { return lookup(Keys, name, "key") }

// With is p with KEY=VALUE assignments applied, all or none: a
// FieldErrors names each refused key.
func (p Project) With(assignments []string) (Project, error) {
	p.Config.TypeLimits = maps.Clone(p.Config.TypeLimits)
	p.Config.Domains = slices.Clone(p.Config.Domains)
	p.Config.LatLng = slices.Clone(p.Config.LatLng)
	err := apply(Keys, &p, assignments, "key")
	return p, err
}

// Value is a key's value in the text form Set takes ("" for an unknown key).
func (p Project) Value(name string) string {
	k, err := KeyNamed(name)
	if err != nil {
		return ""
	}
	return k.Value(p)
}

func setBool(f func(*Config) *bool) func(*Project, string) error {
	return func(p *Project, s string) error {
		v, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("%q is neither true nor false", s)
		}
		*f(&p.Config) = v
		return nil
	}
}

func getBool(f func(*Config) *bool) func(Project) string {
	return func(p Project) string { return strconv.FormatBool(*f(&p.Config)) }
}

// Bounds of the whole-number keys: every value in them keeps the engine's
// arithmetic safe. A duration in seconds becomes microseconds (an int64)
// and is added to or taken from now, which must stay within PostgreSQL's
// timestamps; a count of items is compared with and added to bigint
// counters. Each count key's Range names its bound.
const (
	maxSeconds         = 10 * 366 * 86400 // ten years
	maxItems           = 1_000_000_000
	maxMaxClaims       = 1_000_000
	maxSiteClaimsLimit = 1_000_000
	maxSiteInterval    = 366 * 86400 // a year
	maxRecrawlAfter    = maxSeconds
	maxFilesPerItem    = 1000
)

// Duration is a configuration value in seconds as a time.Duration, the
// one conversion of them: every key in seconds is bounded (maxSeconds, ten
// years, is 3.2e17 of the 9.2e18 nanoseconds a Duration holds), and a value
// out of range, of a Config not read through the store, is clamped into
// [0, maxSeconds] rather than wrapping.
func Duration(seconds int64) time.Duration {
	return time.Duration(min(max(seconds, 0), maxSeconds)) * time.Second
}

// clamp brings every numeric value into its key's range (clampCounts, and
// the bounds of the keys that are no whole number). The next change of
// the project stores the clamped values.
func (p *Project) clamp() {
	clampCounts(Keys, p)
	c := &p.Config
	for t, n := range c.TypeLimits {
		c.TypeLimits[t] = min(max(n, 1), maxItems)
	}
	for _, f := range []*float64{&c.ScoreNone, &c.ScoreSome, &c.ScoreFull} {
		*f = min(max(*f, MinFactor), MaxFactor)
	}
	c.RetireBelow = min(max(c.RetireBelow, 0), math.Nextafter(1, 0))
}

func setFactor(f func(*Config) *float64) func(*Project, string) error {
	return func(p *Project, s string) error {
		n, err := strconv.ParseFloat(s, 64)
		if err != nil || !(n >= MinFactor && n <= MaxFactor) {
			return fmt.Errorf("%q: a number from %v to %v", s, MinFactor, MaxFactor)
		}
		*f(&p.Config) = n
		return nil
	}
}

func getFactor(f func(*Config) *float64) func(Project) string {
	return func(p Project) string { return strconv.FormatFloat(*f(&p.Config), 'g', -1, 64) }
}

func setChoice(f func(*Config) *string, choices ...string) func(*Project, string) error {
	return func(p *Project, s string) error {
		if !slices.Contains(choices, s) {
			return fmt.Errorf("%q: choose %s", s, strings.Join(choices, " or "))
		}
		*f(&p.Config) = s
		return nil
	}
}

func setURL(f func(*Config) *string) func(*Project, string) error {
	return func(p *Project, s string) error {
		u, err := parseURL(s)
		if err == nil {
			*f(&p.Config) = u
		}
		return err
	}
}

func setText(dst *string, s string, limit int) error {
	if len(s) > limit {
		return fmt.Errorf("at most %d bytes", limit)
	}
	*dst = s
	return nil
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
		if !ValidDomain(d) {
			return nil, fmt.Errorf("invalid domain %.80q: 1-%d lowercase letters, digits, '-', '.' and '_'", d, MaxDomainLen)
		}
		if !slices.Contains(domains, d) {
			if len(domains) == MaxListed {
				return nil, fmt.Errorf("at most %d domains", MaxListed)
			}
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
	if len(s) > MaxURL {
		return "", fmt.Errorf("at most %d bytes", MaxURL)
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an http(s) URL", s)
	}
	return s, nil
}

// parseDeadline accepts "", RFC 3339 with any zone (the projects file's
// form is one), or a browser's date-time field ("2026-12-31T23:59", with or
// without seconds) read as UTC, and keeps it in the projects file's form.
func parseDeadline(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC().Format(DeadlineFormat), nil
		}
	}
	return "", fmt.Errorf("%q: write 2026-12-31T23:59:59Z", s)
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
		if err != nil || v < 1 || v > maxItems {
			return nil, fmt.Errorf("%q: the limit must be a whole number from 1 to %d", part, maxItems)
		}
		if _, ok := limits[typ]; !ok && len(limits) == MaxListed {
			return nil, fmt.Errorf("at most %d types", MaxListed)
		}
		limits[typ] = v
	}
	return limits, nil
}

// validate checks every key's value through the table, as if each were
// set anew: the table is the one place that says what a key takes.
func (p Project) validate() error {
	check := p
	errs := make([]error, 0, len(Keys))
	for _, k := range Keys {
		errs = append(errs, k.Set(&check, k.Value(p)))
	}
	if p.Config.Sited() && len(p.Config.TypeLimits) > 0 {
		// Both would make their own stretches of a queue: a site is the
		// finer limit of the two.
		errs = append(errs, &FieldError{Key: "site_key", Err: errors.New("sites and type_limits do not go together: clear type_limits first")})
	}
	if p.Config.Recurring() && p.Config.RecrawlAfter > 0 {
		// A recurring project visits each item on its own schedule; a
		// recrawl would queue an item that waits for its visit as well.
		errs = append(errs, &FieldError{Key: "recrawl_after", Err: errors.New("recrawl_after and mode=recurring do not go together: a recurring project revisits its items on their schedule (set recrawl_after=0 first)")})
	}
	return fieldErrors(errs...)
}

// LimitedTypes are the types with a per-type limit, sorted; never nil, as
// a nil slice reaches SQL as NULL, where "x <> ALL(NULL)" matches nothing.
func (c Config) LimitedTypes() []string {
	return append([]string{}, slices.Sorted(maps.Keys(c.TypeLimits))...)
}

// SiteStretch is the stretch of a queue that holds the items with a site
// (todo.type; no item type has a colon).
const SiteStretch = ":site"

// Stretches are the stretches of a queue the project's items may be in:
// each limited type, the items of no limited type (""), and the items with
// a site. The last even when the project keeps no sites: a view of the
// project read before its site_key went off may be used a moment longer.
func (c Config) Stretches() []string {
	return append(c.LimitedTypes(), "", SiteStretch)
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
