package views

import (
	"net/netip"
	"strconv"
	"time"

	"github.com/a-h/templ"

	"tracker/naming"
)

// The queue browser and an item's page: view models and their helpers.

// AdminBrowseView is the queue browser: a page of one list of a project
// (a queue, the claims, the schedule, the completed items), filtered by
// name, with the actions on the items ticked.
type AdminBrowseView struct {
	AdminProjectPage
	// Lists are the lists to browse, with their sizes.
	Lists []AdminBrowseList
	// Source is the list shown; Kind what it is: "queue", "claims",
	// "scheduled" or "done".
	Source, Kind string
	// The filter: names starting with Prefix, containing Contains (a
	// regular expression when Regex), of Downloader (claims).
	Prefix, Contains string
	Regex            bool
	Downloader       string
	// Per is the page size, PerChoices those offered.
	Per        int
	PerChoices []int
	Items      []AdminBrowseItem
	// First, Prev, Next and Last are the pages around ("" for none).
	First, Prev, Next, Last string
	// Scanned counts the entries read for the page; Partial says a
	// search stopped at the bound before the page was full.
	Scanned int64
	Partial bool
	// State is the page's own address's values, carried by the action
	// forms so an action comes back to the page.
	State []HiddenField
	// Targets are the queues items may be moved or queued to.
	Targets []string
}

// AdminBrowseList is a list of the browser.
type AdminBrowseList struct {
	Name, Label string
	Items       int64
	URL         string
	Current     bool
}

// AdminBrowseItem is an entry of a page of the browser.
type AdminBrowseItem struct {
	Name string
	// URL is the item's page.
	URL string
	// At is when it was claimed, is due or was done (zero in a queue).
	At         time.Time
	Downloader string
	ClaimCount int32
	Queue      string
	Score      float64
	Bytes      int64
}

// AdminItemView is an item's page: the finder, and the item's timeline.
type AdminItemView struct {
	AdminProjectPage
	// Find is the start of names searched ("" when none was); Found the
	// matches, FindNext the next page of them ("" at the end), FindScanned
	// the entries read.
	Find        string
	Found       []AdminFoundItem
	FindNext    string
	FindScanned int64
	// Name is the item asked for ("" for none); Item what is known of it
	// (nil when the project never saw it).
	Name string
	Item *AdminItem
}

// AdminFoundItem is a match of the finder: the item, the list it is in.
type AdminFoundItem struct {
	Name, Where, URL string
}

// AdminItem is what the database keeps of an item.
type AdminItem struct {
	Name       string
	ID         int64
	Status     string
	Queue      string
	ClaimCount int32
	Downloader string
	Archive    string
	// Score is a recurring project's score ("" elsewhere); Tag the update
	// tag it was queued with last.
	Score, Tag string
	// Params are its parameters, indented ("" for none).
	Params string
	// Events are its timeline, oldest first; a visit to come last.
	Events []AdminItemEvent
	// Truncated says older claims or completions were left out.
	Truncated bool
}

// AdminItemEvent is an event of an item's life.
// DomainBytes is the bytes of one domain in a completion.
type DomainBytes struct {
	Domain string
	Bytes  int64
}

type AdminItemEvent struct {
	At time.Time
	// Kind is "queued", "claimed", "expired", "done", "upload", "audit",
	// "due" or "unknown" (what the database did not keep).
	Kind  string
	Title string
	// Who did it and from which address (invalid: unknown).
	Who  string
	From netip.Addr
	// Facts are short lines of detail; Document a JSON document (a
	// result, an audit entry's detail).
	Facts    []string
	Document string
	// Domains are a completion's bytes by domain, largest first.
	Domains []DomainBytes
	// Future marks a visit to come.
	Future bool
}

// browseURL is a list's address in the browser.
func browseURL(slug, query string) templ.SafeURL {
	if query == "" {
		return projectURL(slug, "browse")
	}
	return projectURL(slug, "browse?"+query)
}

// itemURL is an item's page.
func itemURL(slug, name string) templ.SafeURL {
	return projectURL(slug, "item?name="+queryEscape(name))
}

func formatScore(s float64) string { return strconv.FormatFloat(s, 'g', 4, 64) }

// eventClass styles an event by its kind.
func eventClass(e AdminItemEvent) string {
	c := "event event-" + e.Kind
	if e.Future {
		c += " future"
	}
	return c
}

// browseDefaultAction is what the browser's form does when submitted
// without one of its buttons (Enter in a field): the first action of the
// list's kind, which still asks before it does anything.
func browseDefaultAction(kind string) string {
	switch kind {
	case "claims":
		return "release"
	case "scheduled", "done":
		return "requeue"
	}
	return "move"
}

// browseMoveDefault is the queue items of a queue are moved to unless the
// admin picks another: a stopped queue's items back to todo, the others
// aside to secondary.
func browseMoveDefault(source string) string {
	switch source {
	case naming.ErrorQueue, naming.RetiredQueue:
		return "todo"
	case "secondary":
		return "todo"
	}
	return "secondary"
}
