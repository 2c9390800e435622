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
	Username string
	Project  ProjectInfo
	Queues   map[string]int64
	Claims   int64
	Done     int64
	Fields   []ConfigField
	Flash    string
	Error    string
}

// AdminAuditView is the audit log.
type AdminAuditView struct {
	Username string
	Entries  []db.AuditLogListRow
	Project  string // the filter, "" for all
	Now      time.Time
}

func sumQueues(qs map[string]int64) int64 {
	var n int64
	for _, v := range qs {
		n += v
	}
	return n
}
