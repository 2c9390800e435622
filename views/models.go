package views

import (
	"time"

	"tracker/stats"
	"tracker/volunteers"
)

// Site is what every page's chrome shows.
type Site struct {
	// BannerHTML is the tracker-wide banner, trusted HTML set by admins.
	BannerHTML string
	// Description is the page's summary for search engines and link
	// previews; empty, one is made from the page's title.
	Description string
}

// pageDescription is a page's meta description.
func pageDescription(site Site, title string) string {
	if site.Description != "" {
		return site.Description
	}
	return title + " on the tracker, which hands out the work of archiving websites to volunteers' warriors."
}

// HomeProject is one project on the home page.
type HomeProject struct {
	Slug        string
	Title       string
	Description string
	Logo        string // URL or ""
	Done        int64
	Total       int64 // done + claims + queued
	Bytes       int64
	ItemsPerSec float64 // five-minute average
	Active      int64   // warriors active in the last stats.ActiveWindow
	Deadline    *time.Time
	Paused      bool
	// Finished projects are over; HasWork ones have items to hand out
	// or out with warriors, and are neither paused nor finished.
	Finished, HasWork bool
	// Recurring projects never finish: they show where their items stand
	// instead of a progress bar.
	Recurring *RecurringState
}

// RecurringState is where a recurring project's items stand (the home
// page and the project's admin overview show it).
type RecurringState struct {
	// Scheduled items were visited and wait for their next visit to be
	// due; Due ones wait in the queues for a warrior; Out are with
	// warriors now; Retired ones are visited no more.
	Scheduled, Due, Out, Retired int64
	// Visits made in the last hour, and wanted an hour for every item to
	// be visited every revisit interval.
	VisitsPerHour, NeededPerHour float64
	Covered                      bool
}

// HomeView is the home page: every public project.
type HomeView struct {
	Site     Site
	Projects []HomeProject
	Now      time.Time
	// Done and Bytes add up the public projects' completions.
	Done, Bytes int64
	// Volunteers are the tracker's unique volunteers this month and in the
	// last 30 days: the addresses that asked any project for work, each
	// counted once in 30 days (package volunteers).
	Volunteers volunteers.Counts
}

// ProjectInfo is a project's description on its pages.
type ProjectInfo struct {
	Slug        string
	Title       string
	Description string
	Logo        string
	Repository  string
	MinVersion  string
	Deadline    *time.Time
	Paused      bool
	Finished    bool
	// Hidden projects are left out of the home page and the warriors'
	// projects file; their board is still read.
	Hidden bool
}

// Lookup is the answer to the item search box.
type Lookup struct {
	Query      string
	Found      bool
	Status     string // todo, claimed, done, archived, discarded
	Queue      string
	ClaimCount int32
	Downloader string
	ClaimedAt  *time.Time
	DoneAt     *time.Time
	Archive    string
	// Expired are the item's claims that ran out, oldest first.
	Expired []LookupExpiry
	// Params and Result are the item's parameters and its completion's
	// result, indented JSON ("" when none).
	Params, Result string
}

// LookupExpiry is a claim of an item that ran out.
type LookupExpiry struct {
	Downloader           string
	ClaimedAt, ExpiredAt time.Time
}

// LeaderboardView is a project's leaderboard page.
type LeaderboardView struct {
	Site    Site
	Project ProjectInfo
	Board   stats.Board
	// Ranking is the page of the board asked for (period, order, offset).
	Ranking  stats.Ranking
	PageSize int
	Chart    stats.Chart
	Lookup   *Lookup // nil when nothing was searched
	Now      time.Time
}

// DownloaderView is one downloader's page on a project.
type DownloaderView struct {
	Site    Site
	Project ProjectInfo
	Stats   stats.DownloaderStats
	Chart   stats.Chart
	// Neighbours are the downloaders around them on the all-time board
	// by bytes, they included.
	Neighbours stats.Ranking
	BoardPage  int // the leaderboard's page that lists them
	Now        time.Time
}

// NickView is a nick's totals over every project.
type NickView struct {
	Site   Site
	Totals stats.NickTotals
	Now    time.Time
}
