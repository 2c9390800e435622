package views

import (
	"fmt"
	"strconv"

	"github.com/a-h/templ"
)

// recurringLabel says in words where a recurring project's items stand.
func recurringLabel(r *RecurringState) string {
	return fmt.Sprintf("%s scheduled for a later visit, %s due, %s out with warriors, %s retired",
		FormatInt(r.Scheduled), FormatInt(r.Due), FormatInt(r.Out), FormatInt(r.Retired))
}

// shareWidth is the inline width of n's part of all in a stacked bar.
func shareWidth(n, all int64) templ.SafeCSS {
	w := 0.0
	if all > 0 {
		w = float64(n) * 100 / float64(all)
	}
	return templ.SafeCSS("width:" + strconv.FormatFloat(w, 'f', 2, 64) + "%")
}

// volunteersMeaning says what the volunteers count is (package
// volunteers), and what it is not.
const volunteersMeaning = "A volunteer is a network address that asked a project here for work, counted once in 30 days: not the warriors running now, which"

// activeLabel says what an active downloader is (stats.ActiveWindow).
const activeLabel = "Active, an item done in the last 15 minutes"

// WarriorURL is where a volunteer learns to run a warrior.
const WarriorURL = "https://wiki.archiveteam.org/index.php/ArchiveTeam_Warrior"
