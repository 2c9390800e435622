package views

import (
	"cmp"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"tracker/stats"
)

// The admin panel's view models. Handlers fill them from the domain
// packages; nothing here reads the database.

// AdminLoginView is the login form.
type AdminLoginView struct {
	Next     string
	Username string
	Error    string
}

// AdminPage is what every signed-in admin page shows around its content:
// who is signed in, and a message of the last action (Flash), what went
// wrong in it though it was done (Warning), or a refusal (Error).
type AdminPage struct {
	Username string
	IsAdmin  bool
	Flash    string
	Warning  string
	Error    string
	// Nav is the part of the panel the page is in, marked in the bar:
	// "projects", "audit", "jobs", "users", "settings" or "account".
	Nav string
}

// AdminProjectRow is a project on the admin dashboard.
type AdminProjectRow struct {
	Slug, Title string
	// The project's state, as adminState shows it.
	Finished, Paused, Hidden bool
	Queued                   int64
	Claims                   int64
	Done                     int64
	Errors                   int64
}

// AdminHomeView is the admin dashboard.
type AdminHomeView struct {
	AdminPage
	Projects []AdminProjectRow
	// The background jobs in a line: how many, those whose last run
	// failed, those switched off.
	Jobs                int
	JobsFailed, JobsOff []string
}

// AdminJob is a background job on the jobs page.
type AdminJob struct {
	Name string
	// Purpose says in a few words what the job does.
	Purpose string
	Enabled bool
	Every   time.Duration
	// EveryValue is the interval form's value: the one sent when it was
	// refused (EveryError says why), else the interval.
	EveryValue, EveryError string
	NextRunAt              time.Time
	// RunRequested: an admin asked for a run that has not started.
	RunRequested                  bool
	Running                       bool
	LastStartedAt, LastFinishedAt *time.Time
	LastOutcome                   string
	LastError                     string
	LastSummary                   string
	// Failed are the projects whose step of the last run failed, as far
	// as the viewer runs them; OtherFailed counts the others.
	Failed         []AdminJobFailure
	OtherFailed    int
	Runs, Failures int64
}

// AdminJobFailure is a project a job's last run failed on.
type AdminJobFailure struct {
	Project string
	URL     string // its admin page; "" once it is deleted
	Error   string
}

// LastTook is how long the last run took; "" while none has ended since
// it started.
func (j AdminJob) LastTook() string {
	if j.LastStartedAt == nil || j.LastFinishedAt == nil || j.LastFinishedAt.Before(*j.LastStartedAt) {
		return ""
	}
	return FormatElapsed(j.LastFinishedAt.Sub(*j.LastStartedAt))
}

// AdminJobsView is the jobs page. Only global admins change the jobs
// (CanChange); project admins read it.
type AdminJobsView struct {
	AdminPage
	Jobs      []AdminJob
	CanChange bool
}

// Field is one setting on an admin form, from the configuration table:
// the input it takes, its help text, and the value and refusal of the
// last attempt when it failed.
type Field struct {
	Name    string
	Label   string
	Input   string // "bool", "choice", "count", "text", "list", "url", "html", "datetime"
	Choices []string
	Unit    string
	Help    string
	Value   string
	Error   string
	// Locked fields are shown but only global admins may change them.
	Locked bool
	// Range is the whole numbers a "count" field takes (nil for the other
	// inputs): the input's bounds, and stated after the help.
	Range *FieldRange
}

// FieldRange is the range of a count field, and what 0 means in it.
type FieldRange struct {
	Min, Max int64
	Zero     string
}

// rangeText states a count field's range for people: "0 to 1,000,000
// (0: no limit)", a span of seconds with its largest units beside it.
func rangeText(r FieldRange, unit string) string {
	s := FormatInt(r.Min) + " to " + FormatInt(r.Max)
	if unit != "" {
		s += " " + unit
	}
	if unit == "seconds" {
		s += " (" + FormatDuration(time.Duration(r.Max)*time.Second) + ")"
	}
	if r.Min == 0 && r.Zero != "" {
		s += "; 0: " + r.Zero
	}
	return s + "."
}

// The sections of a project's admin pages, in the order of their tabs.
var ProjectSections = []struct{ Slug, Title string }{
	{"", "Overview"},
	{"queues", "Queues & items"},
	{"feeds", "Backfeed & dictionary"},
	{"browse", "Queue browser"},
	{"claims", "Claims"},
	{"limits", "Limits & politeness"},
	{"warriors", "Warriors & project file"},
	{"archive", "Archive"},
	{"danger", "Danger zone"},
}

// AdminProjectPage is what every page of a project's admin shows.
type AdminProjectPage struct {
	AdminPage
	Project ProjectInfo
	// Section is the slug of the page shown ("" for the overview).
	Section string
	// Queues are the project's queues and their sizes, for the counts and
	// the queue pickers.
	Queues []QueueSize
	Claims int64
	Done   int64
}

// QueueSize is a queue and the items in it.
type QueueSize struct {
	Name  string
	Items int64
}

// AdminOverviewView is a project's admin home.
type AdminOverviewView struct {
	AdminProjectPage
	Archived  int64
	Discarded int64
	// Recurring is where a recurring project's items stand (nil in a
	// project whose items are done once).
	Recurring *RecurringState
	// Item is the item looked up, nil when none was.
	Item *Lookup
	// Recent are the project's latest audit entries.
	Recent []AdminAuditEntry
	// Monitor is how the project runs now and lately.
	Monitor AdminMonitor
}

// AdminMonitor is a project's pace as its admin watches it: the rates of
// completions, the warriors at work, the items done over the last day
// (Chart) and the claims that ran out in each of its hours (Failures).
type AdminMonitor struct {
	ItemsPerSec1m, ItemsPerSec5m, ItemsPerSec1h float64
	BytesPerSec5m                               float64
	// Active downloaders completed an item in the last ActiveWindow, of
	// Downloaders ever.
	Active, Downloaders int64
	ActiveWindow        time.Duration
	// RoundTrip is the mean time from claim to completion (nil: unknown).
	RoundTrip *time.Duration
	// Failed items are in the error queue; Expired the claims that ran out
	// in the last day, by hour in Failures.
	Failed, Expired int64
	MaxClaims       int64
	Failures        []AdminAgeBar
	Chart           stats.Chart
}

// AdminQueuesView is the queues and items section.
type AdminQueuesView struct {
	AdminProjectPage
	Fields      []Field
	BackfeedURL string
	// DictionaryURL is where grab scripts ask for the project's dictionary.
	DictionaryURL string
	// DictionaryWarning says why the staging servers' packer cannot pack
	// the files compressed with the project's dictionaries; "" when it can.
	DictionaryWarning string
	// Dictionaries are the project's zstd dictionaries, newest (the one
	// served) first.
	Dictionaries []AdminDictionary
	// Stopped are the queues no request is served from: the failed items
	// (error) and, in a recurring project, the retired ones, a page each.
	Stopped []AdminStoppedList
}

// AdminStoppedList is a page of a queue no request is served from
// (Count items), of names starting with Prefix; Next is the next page ("" at
// the end).
type AdminStoppedList struct {
	Queue, Title, Help string
	Count              int64
	Prefix             string
	Items              []AdminStoppedItem
	Next               string
}

// AdminStoppedItem is an item of a queue no request is served from.
type AdminStoppedItem struct {
	Name           string
	ClaimCount     int32
	LastDownloader string
	// URL shows the item: its history and what can be done with it.
	URL string
}

// AdminDictionary is one uploaded zstd dictionary.
type AdminDictionary struct {
	ID int64
	// LegacyID is the id it had before ids were Unix seconds, 0 for none.
	LegacyID  int64
	SHA256    string
	Size      int64
	CreatedAt time.Time
	CreatedBy string
	// URL serves its bytes.
	URL string
}

// AdminClaimsView is the claims section: settings, the claims by age and
// by downloader, and a page of the claims.
type AdminClaimsView struct {
	AdminProjectPage
	Fields []Field
	// Ages are the claims by age, nil when not counted (too many claims to
	// count on every view: Count asks).
	Ages        []AdminAgeBar
	Downloaders []AdminClaimCount
	// Counted says the counts were read (on request, or because the claims
	// are few).
	Counted bool
	// The list's filters, its page and the next page ("" at the end).
	Downloader, OlderThan, Prefix string
	List                          []AdminClaim
	Next                          string
	// Expiries are the downloaders whose claims ran out most in the last
	// 24 hours, with what they completed.
	Expiries []AdminExpiries
}

// AdminExpiries are a downloader's claims that ran out in the last 24
// hours, beside the items they completed.
type AdminExpiries struct {
	Downloader         string
	Expired, Completed int64
	// Holds is how many claims the downloader holds now.
	Holds int64
	// LastItem is the item whose claim ran out last, and LastItemURL its
	// timeline ("" when it is nowhere to be named).
	LastItem, LastItemURL string
}

// AdminAgeBar is one bar of the claims' age histogram.
type AdminAgeBar struct {
	Label  string
	Claims int64
	// Percent is the bar's length against the longest bar.
	Percent float64
	// OlderThan is the release form's "older than" in minutes for claims
	// of at least this age ("" for the youngest bar).
	OlderThan string
}

// AdminClaimCount is a downloader's claims.
type AdminClaimCount struct {
	Downloader string
	Claims     int64
	Oldest     time.Time
}

// AdminClaim is one claim in the claims list.
type AdminClaim struct {
	Name, Downloader, Queue string
	ClaimedAt               time.Time
	ClaimCount              int32
}

// AdminLimitsView is the limits and politeness section.
type AdminLimitsView struct {
	AdminProjectPage
	Fields []Field
	Blocks []AdminBlock
	// Sites is the frontier of a project whose items have sites (nil for
	// one whose items have none).
	Sites *AdminSites
}

// AdminSites is the sites part of the limits section: the sites by state,
// a page of them, and one site looked up.
type AdminSites struct {
	Sites, Active, Due, Waiting, Blocked int64
	// RequestsWaited counts the requests refused because every site with
	// items queued waited on politeness.
	RequestsWaited int64
	// The list's filter: names starting with Prefix, only the sites with
	// items queued or out unless All.
	Prefix string
	All    bool
	List   []AdminSite
	// Next is the address of the list's next page ("" on the last).
	Next string
	// Query is the name looked up ("" when none); Site the site found
	// (nil when none was).
	Query string
	Site  *AdminSite
}

// AdminSite is one site of a project's frontier.
type AdminSite struct {
	Name                     string
	Queued, Out, Done, Bytes int64
	AtLimit, Blocked         bool
	// State is "blocked", "due", "waiting" or "idle" (nothing queued).
	State  string
	DueAt  time.Time
	LastAt *time.Time
	// Downloader holds the site's items out ("" when none).
	Downloader string
}

// AdminBlock is a block on the limits page.
type AdminBlock struct {
	Kind, Value, Reason string
	Global              bool
	// CreatedBy set it ("" for the shell), at CreatedAt.
	CreatedBy string
	CreatedAt time.Time
}

// AdminWarriorsView is the warriors and project file section.
type AdminWarriorsView struct {
	AdminProjectPage
	Fields  []Field
	Targets []AdminTarget
	// TargetsWarning says what goes wrong with the targets for the files
	// the pipeline uploads per item ("" when nothing does).
	TargetsWarning string
}

// AdminTarget is an upload target.
type AdminTarget struct {
	URL     string
	Weight  int32
	Enabled bool
	// Problem says why warriors refuse it ("" when they take it).
	Problem string
}

// AdminArchiveView is the archive section.
type AdminArchiveView struct {
	AdminProjectPage
	Fields    []Field
	Archived  int64
	Discarded int64
}

// AdminDangerView is the danger zone.
type AdminDangerView struct {
	AdminProjectPage
}

// AdminConfirmView asks before an action: what it will do, counted and
// named, and the same form again with confirmed=1. Outside a project (the
// users page) Project is empty.
type AdminConfirmView struct {
	AdminProjectPage
	Question string
	Action   string
	Button   string
	Hidden   []HiddenField
	// Typed, when set, must be typed into a box to go on (a drain drops
	// items for good).
	Typed string
	// Destructive actions cannot be undone: their button is red. A move
	// or a release is asked about too, but is not.
	Destructive bool
	// Back is where Cancel leads: the page the action was asked from.
	Back string
}

// HiddenField is a form value carried through a confirmation.
type HiddenField struct{ Name, Value string }

// AdminSettingsView is the tracker-wide settings page.
type AdminSettingsView struct {
	AdminPage
	Fields []Field
	// AutoProjectWarning says why warriors on "auto" get no project
	// ("" when they get one).
	AutoProjectWarning string
	// Auto is the project of the auto_project list the projects file
	// names now, and why (Auto.Reason "" when the list is empty).
	Auto AutoChoiceView
}

// AutoChoiceView is the auto project chosen, why, and when.
type AutoChoiceView struct {
	Slug, Reason string
	DecidedAt    time.Time
}

// AdminAuditEntry is one entry of the audit log.
type AdminAuditEntry struct {
	ID          int64
	At          time.Time
	Username    string
	IP          netip.Addr
	Action      string
	ProjectSlug string
	Detail      string
	// Lines are Detail as people read it (AuditDetail), durations with
	// their units.
	Lines []AuditLine
}

// AdminAuditView is the audit log.
type AdminAuditView struct {
	AdminPage
	Entries []AdminAuditEntry
	// The filters ("" for all) and the next page ("" at the end). From
	// and To are days (YYYY-MM-DD, UTC), both included.
	Project, User, Action string
	From, To              string
	Next                  string
}

// AdminUserRow is an account on the users page.
type AdminUserRow struct {
	ID        int32
	Username  string
	Role      string
	Projects  []string
	CreatedAt time.Time
}

// AdminUsersView is the users page.
type AdminUsersView struct {
	AdminPage
	Users []AdminUserRow
	// Slugs are every project, for the grant picker.
	Slugs []string
}

// jobEvery is a job's interval as people read it.
func jobEvery(d time.Duration) string {
	if d < time.Second {
		return d.String()
	}
	return FormatDuration(d)
}

// RoleName is a role as people say it: "global admin", "project admin".
func RoleName(role string) string {
	switch role {
	case "admin":
		return "global admin"
	case "project_admin":
		return "project admin"
	}
	return role
}

// itemActions are what an admin may do with an item in a state.
func itemActions(status string) []string {
	switch status {
	case "claimed":
		return []string{"release", "done"}
	case "todo":
		return []string{"done"}
	case "done":
		return []string{"requeue"}
	case "failed":
		return []string{"requeue", "drop", "done"}
	case "retired":
		return []string{"requeue", "drop"}
	}
	return nil
}

func itemActionName(a string) string {
	switch a {
	case "release":
		return "Release"
	case "done":
		return "Mark done"
	case "requeue":
		return "Queue again"
	case "drop":
		return "Drop"
	}
	return a
}

func projectURL(slug, rest string) templ.SafeURL {
	return templ.SafeURL("/admin/projects/" + slug + "/" + rest)
}

func sumQueues(qs []QueueSize) int64 {
	var n int64
	for _, q := range qs {
		n += q.Items
	}
	return n
}

func cmpOr(s, fallback string) string { return cmp.Or(s, fallback) }

func queryEscape(s string) string { return url.QueryEscape(s) }

// siteURL is the limits section showing one site.
func siteURL(slug, name string) templ.SafeURL {
	return projectURL(slug, "limits?site="+url.QueryEscape(name)+"#site-h")
}

// currentPage marks the link to the page shown.
func currentPage(current bool) templ.Attributes {
	if current {
		return templ.Attributes{"aria-current": "page"}
	}
	return templ.Attributes{}
}

// describedBy ties an input to its help text and, when refused, to the
// reason.
func describedBy(f Field) templ.Attributes {
	if f.Error != "" {
		return templ.Attributes{"aria-describedby": "err-" + f.Name + " help-" + f.Name, "aria-invalid": "true"}
	}
	return templ.Attributes{"aria-describedby": "help-" + f.Name}
}

// datetimeLocal is a deadline as a date-time field shows it (no zone: the
// form says UTC).
func datetimeLocal(v string) string { return strings.TrimSuffix(v, "Z") }

// secondsHint reads a number of seconds for people ("= 2 h").
func secondsHint(v string) string {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return ""
	}
	return "= " + FormatDuration(time.Duration(n)*time.Second)
}

// AdminTokensView is the page of an account's API tokens.
type AdminTokensView struct {
	AdminPage
	Tokens []AdminTokenRow
	// Slugs are the projects the account runs, for the projects picker.
	Slugs []string
	// Secret is the token just made, shown this once.
	Secret, SecretName string
	// Name, Scope and Projects are the form's values after a refusal.
	Name, Scope, Projects string
}

// AdminTokenRow is one API token, without its secret.
type AdminTokenRow struct {
	ID       int32
	Name     string
	Scope    string
	Projects []string // empty: every project the account runs
	Created  time.Time
	LastUsed *time.Time
	Revoked  *time.Time
}

// countBounds are a count input's min and max: the browser refuses a value
// out of range before it is sent, as the server would.
func countBounds(f Field) templ.Attributes {
	if f.Range == nil {
		return templ.Attributes{"min": "0"}
	}
	return templ.Attributes{"min": strconv.FormatInt(f.Range.Min, 10), "max": strconv.FormatInt(f.Range.Max, 10)}
}
