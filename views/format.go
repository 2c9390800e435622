package views

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
)

// FormatBytes renders a byte count with a binary unit: 1536 → "1.5 KiB".
// static/live.js formats the same way.
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// FormatInt renders a count with thousands separators: 1234567 → "1,234,567".
func FormatInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// FormatRate renders a per-second rate with one decimal.
func FormatRate(r float64) string { return strconv.FormatFloat(r, 'f', 1, 64) }

// FormatBytesRate renders bytes per second.
func FormatBytesRate(r float64) string { return FormatBytes(int64(math.Round(r))) + "/s" }

// nbsp joins a number to its "%": a line never breaks between them.
const nbsp = "\u00a0"

// FormatPct renders a 0..1 share as a percentage; "—" when unknown.
func FormatPct(r *float64) string {
	if r == nil {
		return "—"
	}
	return strconv.FormatFloat(*r*100, 'f', 1, 64) + nbsp + "%"
}

// Percent is done of total as a percentage with one decimal.
func Percent(done, total int64) string {
	if total <= 0 {
		return "0.0" + nbsp + "%"
	}
	return strconv.FormatFloat(float64(done)*100/float64(total), 'f', 1, 64) + nbsp + "%"
}

// FormatDuration renders a length of time in its two largest units:
// "3 d 4 h", "5 min 2 s".
func FormatDuration(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	s := int64(d / time.Second)
	if s == 0 {
		return "0 s"
	}
	var parts []string
	for _, u := range []struct {
		name string
		secs int64
	}{{"d", 86400}, {"h", 3600}, {"min", 60}, {"s", 1}} {
		n := s / u.secs
		if n == 0 {
			if len(parts) > 0 {
				break
			}
			continue
		}
		parts = append(parts, fmt.Sprintf("%d %s", n, u.name))
		s -= n * u.secs
		if len(parts) == 2 {
			break
		}
	}
	return strings.Join(parts, " ")
}

// FormatSeconds is FormatDuration of a count of seconds; "—" when unknown.
func FormatSeconds(s *float64) string {
	if s == nil {
		return "—"
	}
	return FormatDuration(time.Duration(*s * float64(time.Second)))
}

// Ago renders how long before now t was: "12 s ago".
func Ago(t, now time.Time) string {
	if t.IsZero() {
		return "never"
	}
	if now.Sub(t) < time.Second {
		return "just now"
	}
	return FormatDuration(now.Sub(t)) + " ago"
}

// Countdown renders the time left until a deadline: "closes in 3 d 4 h",
// or "closed" once it has passed.
func Countdown(deadline, now time.Time) string {
	if !deadline.After(now) {
		return "closed"
	}
	return "closes in " + FormatDuration(deadline.Sub(now))
}

// Rel is how far t is from now in its largest unit, as the admin panel
// shows times: "4 min ago", "in 25 s", "just now". static/admin.js says
// the same as time passes.
func Rel(t, now time.Time) string {
	d := now.Sub(t)
	future := d < 0
	if future {
		d = -d
	}
	var s string
	switch {
	case d < time.Second:
		return "just now"
	case d < time.Minute:
		s = fmt.Sprintf("%d s", d/time.Second)
	case d < time.Hour:
		s = fmt.Sprintf("%d min", d/time.Minute)
	case d < 48*time.Hour:
		s = fmt.Sprintf("%d h", d/time.Hour)
	default:
		s = fmt.Sprintf("%d d", d/(24*time.Hour))
	}
	if future {
		return "in " + s
	}
	return s + " ago"
}

// relText is Rel, or past once a time to come has passed (or is less
// than a second away).
func relText(t, now time.Time, past string) string {
	if past != "" && t.Before(now.Add(time.Second)) {
		return past
	}
	return Rel(t, now)
}

// Exact is a time to the second, in UTC: what a relative time stands for.
func Exact(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

// FormatElapsed is how long something took, as precisely as is worth
// reading: "340 ms", "1.2 s", "42 s", "3 min 5 s".
func FormatElapsed(d time.Duration) string {
	switch {
	case d < 0:
		d = 0
		fallthrough
	case d < time.Second:
		return fmt.Sprintf("%d ms", d/time.Millisecond)
	case d < 10*time.Second:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
	}
	return FormatDuration(d)
}

// ISO is a time for datetime attributes and machines.
func ISO(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// When is a time for people, in UTC.
func When(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// PathEscape escapes a nick or an item for a URL path segment.
func PathEscape(s string) string { return url.PathEscape(s) }

func displayTitle(title, slug string) string {
	if title == "" {
		return slug
	}
	return title
}

func percentValue(done, total int64) string {
	if total <= 0 {
		return "0"
	}
	return strconv.FormatFloat(float64(done)*100/float64(total), 'f', 1, 64)
}

// progressWidth is the inline width of a progress bar's filled part.
func progressWidth(done, total int64) templ.SafeCSS {
	return templ.SafeCSS("width:" + percentValue(done, total) + "%")
}
