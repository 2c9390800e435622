package views

import (
	"time"

	"tracker/db"
)

// AdminLoginView is the login form.
type AdminLoginView struct {
	Next     string
	Username string
	Error    string
}

// AdminProjectRow is a project on the admin dashboard.
type AdminProjectRow struct {
	Slug, Title string
	Paused      bool
	Queues      map[string]int64
	Claims      int64
	Done        int64
}

// AdminHomeView is the admin dashboard.
type AdminHomeView struct {
	Username string
	IsAdmin  bool
	Projects []AdminProjectRow
	Jobs     []db.Job
	Flash    string
}

// ConfigField is one configuration key on the project form.
type ConfigField struct {
	Key, Value string
}

// AdminProjectView is one project's admin page.
type AdminProjectView struct {
	Username    string
	Project     ProjectInfo
	Queues      map[string]int64
	Claims      int64
	Done        int64
	Fields      []ConfigField
	Blocks      []AdminBlock
	Targets     []AdminTarget
	BackfeedURL string
	// Item is the item looked up, nil when none was.
	Item  *Lookup
	Flash string
	Error string
}

// AdminBlock is a block on the project page.
type AdminBlock struct {
	Kind, Value, Reason string
	Global              bool
}

// AdminTarget is an upload target on the project page.
type AdminTarget struct {
	URL     string
	Weight  int32
	Enabled bool
}

// AdminClaimCount is a downloader's claims.
type AdminClaimCount struct {
	Downloader string
	Claims     int64
	Oldest     time.Time
}

// AdminSettingsView is the tracker-wide settings page.
type AdminSettingsView struct {
	Username string
	Fields   []ConfigField
	Flash    string
	Error    string
}

// AdminAuditView is the audit log.
type AdminAuditView struct {
	Username string
	Entries  []db.AuditLogListRow
	// The filters ("" for all) and the next page ("" at the end).
	Project, User, Action string
	Next                  string
	Now                   time.Time
}

func sumQueues(qs map[string]int64) int64 {
	var n int64
	for _, v := range qs {
		n += v
	}
	return n
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
	Username string
	Users    []AdminUserRow
	Flash    string
	Error    string
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
	}
	return a
}

// AdminClaim is one claim in the claims list.
type AdminClaim struct {
	Name, Downloader, Queue string
	ClaimedAt               time.Time
	ClaimCount              int32
}

// AdminClaimsView is a page of a project's claims.
type AdminClaimsView struct {
	Username                      string
	Project                       ProjectInfo
	Downloader, OlderThan, Prefix string
	Claims                        []AdminClaim
	Next                          string // the next page, "" at the end
	// PerDownloader: the counts of claims per downloader were asked for.
	PerDownloader bool
	Downloaders   []AdminClaimCount
}
