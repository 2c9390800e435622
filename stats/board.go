package stats

import (
	"time"

	"tracker/sites"
	"tracker/volunteers"
)

// Board is what a project's leaderboard shows: its numbers at one moment.
// The page renders it, the live stream sends it as JSON (event "board")
// and /{project}/stats.json serves it.
type Board struct {
	Project string `json:"project"`
	Title   string `json:"title"`
	// Seq numbers the boards of a project in this process; the live
	// stream's event ids.
	Seq int64     `json:"seq"`
	At  time.Time `json:"at"`

	Totals  Totals   `json:"totals"`
	Rates   Rates    `json:"rates"`
	Health  Health   `json:"health"`
	Domains []Domain `json:"domains"`
	// Shards are the items backfeed posts queued in the last hour, per
	// shard, largest first: ShardsShown of them, the rest summed in one
	// last entry.
	Shards []ShardNew  `json:"shards"`
	Feed   []FeedEntry `json:"feed"`
	// Leaders are the first downloaders of the all-time board by bytes
	// (LeadersShown of them); pages read longer boards from Ranking.
	Leaders []Leader `json:"leaders"`
	// Volunteers are the unique addresses that asked for work this month
	// and in the last 30 days, each counted at most once in 30 days.
	Volunteers volunteers.Counts `json:"volunteers"`
	// Coverage is a recurring project's pace against its list (nil for a
	// project whose items are done once).
	Coverage *Coverage `json:"coverage"`
	// Sites is the frontier of a project whose items have sites (nil for
	// one whose items have none).
	Sites *sites.Summary `json:"sites"`
}

// Coverage says whether a recurring project gets through its list: the
// items tracked each want a visit every revisit_after.
type Coverage struct {
	Tracked       int64   `json:"tracked"`
	VisitsPerHour float64 `json:"visits_per_hour"`
	NeededPerHour float64 `json:"needed_per_hour"`
	Covered       bool    `json:"covered"`
	// WarriorsNeeded estimates the warriors to add, at the active ones'
	// pace, for the list to be covered (0 when it is, or when nobody works).
	WarriorsNeeded int64 `json:"warriors_needed"`
}

// LeadersShown is how many leaders a Board carries.
const LeadersShown = 25

// Totals counts the project's items.
type Totals struct {
	Done  int64 `json:"done"`
	Bytes int64 `json:"bytes"`
	// Claims are the items out with warriors now.
	Claims int64 `json:"claims"`
	// Todo is the sum of the queues but the error and retired queues.
	Todo   int64            `json:"todo"`
	Queues map[string]int64 `json:"queues"`
	// Errors are the items that failed (the error queue): handed out
	// max_claims times, never finished.
	Errors int64 `json:"errors"`
	// Revisits are a recurring project's items waiting for their next
	// visit; Retired those whose score fell too low (the retired queue).
	Revisits int64 `json:"revisits"`
	Retired  int64 `json:"retired"`
	// Total is done + claims + todo + errors: every item the project has.
	Total     int64 `json:"total"`
	Reclaims  int64 `json:"reclaims"`
	Archived  int64 `json:"archived"`
	Discarded int64 `json:"discarded"`
	// Downloaders ever; Active are those who completed something in the
	// last ActiveWindow.
	Downloaders int64 `json:"downloaders"`
	Active      int64 `json:"active"`
	// BackfedAgain counts, ever, the items backfeed posts with skipbloom=1
	// queued again although the project had seen them.
	BackfedAgain int64 `json:"backfed_again"`
}

// ActiveWindow is how recently a downloader must have completed an item to
// count as active.
const ActiveWindow = 15 * time.Minute

// Rates are moving averages of completions, and what they promise.
type Rates struct {
	// Items and bytes per second over the last minute, five minutes and
	// hour.
	ItemsPerSec1m float64 `json:"items_per_sec_1m"`
	ItemsPerSec5m float64 `json:"items_per_sec_5m"`
	ItemsPerSec1h float64 `json:"items_per_sec_1h"`
	BytesPerSec1m float64 `json:"bytes_per_sec_1m"`
	BytesPerSec5m float64 `json:"bytes_per_sec_5m"`
	BytesPerSec1h float64 `json:"bytes_per_sec_1h"`
	// ETASeconds is how long the items left take at the five-minute rate
	// (nil when nothing moves). Finish is now plus that.
	ETASeconds *float64   `json:"eta_seconds"`
	Finish     *time.Time `json:"finish"`
	// Deadline, when the project has one; then OnTrack says whether Finish
	// comes before it, and WarriorsNeeded how many more active warriors,
	// each at today's average rate per warrior, would make it.
	Deadline       *time.Time `json:"deadline"`
	OnTrack        *bool      `json:"on_track"`
	WarriorsNeeded *int64     `json:"warriors_needed"`
}

// Health is the queue's health as the ArchiveTeam wiki defines it. A nil
// rate is unknown (nothing to measure yet).
type Health struct {
	// RequestServeRate: the share of item requests given an item (last
	// five minutes).
	RequestServeRate *float64 `json:"request_serve_rate"`
	// ReclaimRate: the share of completed items that were reclaimed at
	// least once.
	ReclaimRate *float64 `json:"reclaim_rate"`
	// ReclaimServeRate: the share of served requests given a reclaimed
	// item (last five minutes).
	ReclaimServeRate *float64 `json:"reclaim_serve_rate"`
	// RoundTripSeconds: the mean time from claim to completion (last five
	// minutes).
	RoundTripSeconds *float64 `json:"round_trip_seconds"`
}

// Domain is the bytes of one domain key of the done requests. A board
// carries the DomainsKept with the most bytes, largest first, then the
// others summed in one last entry named "other" (projects.OtherDomain).
type Domain struct {
	Domain string `json:"domain"`
	Bytes  int64  `json:"bytes"`
}

// ShardNew is how many new items backfeed posts queued in one shard.
type ShardNew struct {
	// Shard is "" for the project's default scope (posts naming no shard).
	Shard string `json:"shard"`
	New   int64  `json:"new"`
	// Others, when not 0, makes this the entry summing that many smaller
	// shards (Shard is then "").
	Others int `json:"others,omitempty"`
}

// ShardsShown is how many shards a Board names; the others are summed.
const ShardsShown = 20

// ShardsWindow is the span a Board's Shards count.
const ShardsWindow = time.Hour

// FeedEntry is one recent done request.
type FeedEntry struct {
	At         time.Time `json:"at"`
	Downloader string    `json:"downloader"`
	Items      int64     `json:"items"`
	Bytes      int64     `json:"bytes"`
	// Item is one of the items it completed.
	Item string `json:"item"`
}

// Leader is a downloader's line on a board.
type Leader struct {
	Rank  int    `json:"rank"`
	Nick  string `json:"nick"`
	Items int64  `json:"items"`
	Bytes int64  `json:"bytes"`
	// Share of the board's total, by the board's order (bytes or items),
	// 0..1.
	Share    float64   `json:"share"`
	LastSeen time.Time `json:"last_seen"`
	Version  string    `json:"version"`
	// Outdated: the version is older than the project's min_version.
	Outdated bool `json:"outdated"`
}

// Period of a ranking.
type Period string

const (
	AllTime Period = "all"
	Day     Period = "24h"
	Week    Period = "7d"
)

// Order of a ranking.
type Order string

const (
	ByBytes Order = "bytes"
	ByItems Order = "items"
)

// Ranking is one board of downloaders: a period, an order, and the page of
// it asked for.
type Ranking struct {
	Period  Period   `json:"period"`
	Order   Order    `json:"order"`
	Total   int      `json:"total"` // downloaders on the whole board
	Offset  int      `json:"offset"`
	Leaders []Leader `json:"leaders"`
	At      time.Time
}

// Point is one bucket of a chart.
type Point struct {
	At    time.Time `json:"at"`
	Items int64     `json:"items"`
	Bytes int64     `json:"bytes"`
}

// Span of a chart.
type Span string

const (
	SpanDay   Span = "day"
	SpanWeek  Span = "week"
	SpanMonth Span = "month"
	SpanAll   Span = "all"
)

// Chart is completions over time, of a project or of one downloader.
type Chart struct {
	Span Span `json:"span"`
	// Bucket is each point's width in seconds; the last point's bucket
	// ends at At, when the chart was read.
	Bucket int64     `json:"bucket_seconds"`
	At     time.Time `json:"at"`
	Points []Point   `json:"points"`
	// Lines are the project's top downloaders' (nil on a downloader's
	// chart).
	Lines *Lines `json:"lines,omitempty"`
}

// Lines are the bytes the project's top downloaders (ChartLines of them,
// first by bytes all time) downloaded over a chart's span, cumulative.
type Lines struct {
	// Start is where the lines begin: the chart's start, to the bucket.
	Start time.Time `json:"start"`
	// Bucket is the lines' step in seconds: the chart's bucket, an hour
	// at least (downloaders are kept by the hour).
	Bucket      int64  `json:"bucket_seconds"`
	Downloaders []Line `json:"downloaders"`
}

// Line is one downloader's bytes: Bytes[i] is what they downloaded from
// Start to Start + i buckets (0 at Start), the last to the chart's At.
type Line struct {
	Nick  string  `json:"nick"`
	Bytes []int64 `json:"bytes"`
}

// DownloaderStats is one downloader's page on a project.
type DownloaderStats struct {
	Project string `json:"project"`
	Nick    string `json:"nick"`
	// Rank on the all-time board by bytes (0 when not on it).
	Rank      int        `json:"rank"`
	Items     int64      `json:"items"`
	Bytes     int64      `json:"bytes"`
	Claims    int64      `json:"claims"`    // items out with them now
	Reclaimed int64      `json:"reclaimed"` // of their claims, handed to them after expiring elsewhere
	Version   string     `json:"version"`
	Outdated  bool       `json:"outdated"`
	FirstSeen *time.Time `json:"first_seen"`
	LastSeen  *time.Time `json:"last_seen"`
	Day       Leader     `json:"last_24h"`
	Week      Leader     `json:"last_7d"`
	// Expired24h counts their claims that ran out in the last 24 hours,
	// beside Day.Items, what they completed.
	Expired24h int64 `json:"expired_24h"`
}

// Expiries are a downloader's claims that ran out in the last 24 hours,
// beside the items they completed.
type Expiries struct {
	Nick      string `json:"nick"`
	Expired   int64  `json:"expired"`
	Completed int64  `json:"completed"`
}

// NickTotals is a nick's work on every project.
type NickTotals struct {
	Nick     string            `json:"nick"`
	Items    int64             `json:"items"`
	Bytes    int64             `json:"bytes"`
	Projects []DownloaderStats `json:"projects"`
}
