package views

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"tracker/stats"
)

// A chart's drawing area, in SVG units. It is stretched to the width of
// the page (preserveAspectRatio="none"), so its axes' labels are HTML
// beside it, not SVG text, which would stretch too.
const (
	plotW = 1000.0
	plotH = 300.0
)

// Chart measures: what a chart of a project's completions shows.
const (
	ChartItems = "items" // items done an hour
	ChartBytes = "bytes" // bytes downloaded a second
	ChartLines = "lines" // the top downloaders' bytes, cumulative
)

// tick is a label on an axis: where, in percent from the left or the
// bottom, and what.
type tick struct {
	Pos   float64
	Label string
	// Class anchors the labels at the ends of the time axis inside the
	// chart, so none sticks out of the page.
	Class string
}

// plot is a chart laid out for drawing.
type plot struct {
	Measure string
	Title   string
	// Summary says in words what the chart shows: under the title, and
	// the drawing's accessible name.
	Summary string
	Empty   bool
	YTicks  []tick
	XTicks  []tick
	// Grid are the heights of the y ticks' lines, in SVG units.
	Grid []string
	// Path is a rate chart's steps, closed along the bottom.
	Path  string
	Lines []plotLine
	// Hover is what static/chart.js reads to say a bucket's figure under
	// the pointer (a rate chart's): the buckets' start, width in seconds
	// and end, and each one's count (items or bytes), space-separated.
	Hover *hoverData
}

type hoverData struct {
	Start, End string
	Bucket     string
	Counts     string
}

// plotLine is one downloader's line on the chart of the top downloaders.
type plotLine struct {
	Nick  string
	Class string // its colour: l0 to l9, by rank
	D     string
	Total string
}

func (t tick) style(axis string) templ.SafeCSS {
	side := "left"
	if axis == "y" {
		side = "bottom"
	}
	return templ.SafeCSS(side + ":" + strconv.FormatFloat(t.Pos, 'f', 2, 64) + "%")
}

// chartEnd is when the chart's last bucket ends: when it was read.
func chartEnd(c stats.Chart) time.Time {
	if !c.At.IsZero() {
		return c.At
	}
	if len(c.Points) == 0 {
		return time.Time{}
	}
	return c.Points[len(c.Points)-1].At.Add(time.Duration(c.Bucket) * time.Second)
}

// ratePlot lays out the items done an hour (ChartItems) or the bytes
// downloaded a second (ChartBytes) of each bucket, as steps. The last
// bucket, still under way, is drawn as the rate over a whole bucket's
// width ending now: what it has so far, and the bucket before it for the
// part of that width before it began, as if spread evenly. A bucket just
// begun with nothing yet so does not drop the chart to nothing at its
// right edge; the line falls only when a bucket's width goes by idle.
func ratePlot(c stats.Chart, measure string) plot {
	p := plot{Measure: measure, Title: "Items done per hour"}
	if measure == ChartBytes {
		p.Title = "Download speed"
	}
	var total int64
	for _, pt := range c.Points {
		if measure == ChartBytes {
			total = addSat(total, pt.Bytes)
		} else {
			total += pt.Items
		}
	}
	if total == 0 || c.Bucket <= 0 {
		p.Empty = true
		p.Summary = "No completions in this span yet."
		return p
	}
	start, end := c.Points[0].At, chartEnd(c)
	bucket := time.Duration(c.Bucket) * time.Second
	rates := make([]float64, len(c.Points))
	peak := 0.0
	count := func(pt stats.Point) float64 {
		if measure == ChartBytes {
			return float64(pt.Bytes)
		}
		return float64(pt.Items) * 3600
	}
	for i, pt := range c.Points {
		v := count(pt)
		if i == len(c.Points)-1 {
			if run := end.Sub(pt.At); run < bucket && i > 0 {
				v += count(c.Points[i-1]) * float64(bucket-max(run, 0)) / float64(bucket)
			} else if i == 0 {
				// A first bucket has nothing before it: over the time it ran
				// (a minute at least).
				v *= bucket.Seconds() / max(run, min(bucket, time.Minute)).Seconds()
			}
		}
		rates[i] = v / bucket.Seconds()
		peak = max(peak, rates[i])
	}
	binary := measure == ChartBytes
	top, ys := niceScale(peak, binary)
	suffix := "/h"
	if binary {
		suffix = "/s"
	}
	p.YTicks, p.Grid = yTicks(ys, top, binary, suffix)
	p.XTicks = timeTicks(start, end)

	x := func(t time.Time) float64 { return timeX(t, start, end) }
	y := func(v float64) float64 { return plotH - v/top*plotH }
	var b strings.Builder
	fmt.Fprintf(&b, "M0,%s", f1(plotH))
	last := -1.0
	for i, pt := range c.Points {
		yi := y(rates[i])
		if yi != last {
			fmt.Fprintf(&b, "H%sV%s", f1(x(pt.At)), f1(yi))
			last = yi
		}
	}
	fmt.Fprintf(&b, "H%sV%sZ", f1(plotW), f1(plotH))
	p.Path = b.String()
	counts := make([]string, len(c.Points))
	for i, pt := range c.Points {
		if measure == ChartBytes {
			counts[i] = strconv.FormatInt(pt.Bytes, 10)
		} else {
			counts[i] = strconv.FormatInt(pt.Items, 10)
		}
	}
	p.Hover = &hoverData{Start: ISO(start), End: ISO(end), Bucket: strconv.FormatInt(c.Bucket, 10), Counts: strings.Join(counts, " ")}

	span := "from " + When(start) + " to " + When(end)
	by := FormatDuration(bucket) + " buckets"
	if measure == ChartBytes {
		p.Summary = fmt.Sprintf("%s downloaded %s, at most %s (%s).", FormatBytes(total), span, FormatBytesRate(peak), by)
	} else {
		p.Summary = fmt.Sprintf("%s %s done %s, at most %s an hour (%s).", FormatInt(total), plural(total, "item", "items"), span, formatNumber(peak), by)
	}
	return p
}

// linesPlot lays out the top downloaders' cumulative bytes over the span,
// one line each, coloured by rank. The y axis fits the lines shown: those
// of hidden (nicks whose lines a reader hid) are drawn off, and rise past
// the top when they lead, unless every line is hidden.
func linesPlot(c stats.Chart, hidden ...string) plot {
	p := plot{Measure: ChartLines, Title: "Top downloaders"}
	if c.Lines == nil || len(c.Points) == 0 {
		p.Empty = true
		return p
	}
	start, end := c.Points[0].At, chartEnd(c)
	step := time.Duration(c.Lines.Bucket) * time.Second
	off := map[string]bool{}
	for _, n := range hidden {
		off[n] = true
	}
	var peak, peakShown int64
	for _, l := range c.Lines.Downloaders {
		if n := len(l.Bytes); n > 0 {
			peak = max(peak, l.Bytes[n-1])
			if !off[l.Nick] {
				peakShown = max(peakShown, l.Bytes[n-1])
			}
		}
	}
	if peakShown > 0 {
		peak = peakShown
	}
	if peak == 0 {
		p.Empty = true
		return p
	}
	top, ys := niceScale(float64(peak), true)
	p.YTicks, p.Grid = yTicks(ys, top, true, "")
	p.XTicks = timeTicks(start, end)
	bucket := time.Duration(c.Bucket) * time.Second
	at := func(j int) time.Time {
		t := c.Lines.Start.Add(time.Duration(j) * step)
		if t.Before(start) {
			return start
		}
		if t.After(end) {
			return end
		}
		return t
	}
	for i, l := range c.Lines.Downloaders {
		var b strings.Builder
		y := func(v int64) string { return f1(plotH - float64(v)/top*plotH) }
		for j, v := range l.Bytes {
			if j == 0 {
				fmt.Fprintf(&b, "M%s,%s", f1(timeX(at(0), start, end)), y(v))
				continue
			}
			// A line's steps are an hour at least; the chart's own buckets,
			// finer, say when in the hour anything was done at all: the
			// line rises only then, not across an idle stretch.
			from, to := at(j-1), at(j)
			if v > l.Bytes[j-1] {
				if first, last, ok := activeWithin(c.Points, bucket, from, to); ok {
					if first.After(from) {
						fmt.Fprintf(&b, "L%s,%s", f1(timeX(first, start, end)), y(l.Bytes[j-1]))
					}
					if last.Before(to) {
						fmt.Fprintf(&b, "L%s,%s", f1(timeX(last, start, end)), y(v))
					}
				}
			}
			fmt.Fprintf(&b, "L%s,%s", f1(timeX(to, start, end)), y(v))
		}
		var total int64
		if n := len(l.Bytes); n > 0 {
			total = l.Bytes[n-1]
		}
		class := "l" + strconv.Itoa(i%10)
		if off[l.Nick] {
			class += " off"
		}
		p.Lines = append(p.Lines, plotLine{Nick: l.Nick, Class: class, D: b.String(), Total: FormatBytes(total)})
	}
	p.Summary = fmt.Sprintf("Bytes downloaded from %s to %s by the %s first downloaders of all time, added up over time; %s leads with %s.",
		When(start), When(end), FormatInt(int64(len(p.Lines))), p.Lines[0].Nick, p.Lines[0].Total)
	if len(p.Lines) == 1 {
		p.Summary = fmt.Sprintf("Bytes downloaded from %s to %s by %s, the first downloader of all time, added up over time: %s.",
			When(start), When(end), p.Lines[0].Nick, p.Lines[0].Total)
	}
	return p
}

// activeWithin is when, from from to to, the first bucket with anything
// done began and the last one ended (to at most).
func activeWithin(points []stats.Point, bucket time.Duration, from, to time.Time) (first, last time.Time, ok bool) {
	for _, p := range points {
		if p.Items == 0 && p.Bytes == 0 || !p.At.Add(bucket).After(from) || !p.At.Before(to) {
			continue
		}
		if !ok {
			first, ok = p.At, true
		}
		last = p.At.Add(bucket)
	}
	if first.Before(from) {
		first = from
	}
	if last.After(to) {
		last = to
	}
	return first, last, ok
}

// timeX places t on the time axis from start to end.
func timeX(t, start, end time.Time) float64 {
	span := end.Sub(start)
	if span <= 0 {
		return plotW
	}
	return float64(t.Sub(start)) / float64(span) * plotW
}

// niceScale is a y axis for values up to peak: its top and its ticks from
// 0, four steps or so of 1, 2, 2.5 or 5 times a power of ten (of a power
// of 1024 for bytes: "256 MiB", not "268 MB").
func niceScale(peak float64, binary bool) (float64, []float64) {
	unit := 1.0
	if binary {
		for peak/unit >= 1024 {
			unit *= 1024
		}
	}
	raw := peak / unit / 4
	if raw <= 0 {
		raw = 0.25
	}
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	step *= unit
	top := math.Ceil(peak/step-1e-9) * step
	if top <= 0 {
		top = step
	}
	var ticks []float64
	for i := 0; float64(i)*step <= top+step/2; i++ {
		ticks = append(ticks, float64(i)*step)
	}
	return top, ticks
}

// yTicks labels the y ticks (binary: as bytes) with the suffix, and puts
// their grid lines.
func yTicks(ys []float64, top float64, binary bool, suffix string) ([]tick, []string) {
	var ticks []tick
	var grid []string
	for _, v := range ys {
		label := formatNumber(v)
		if binary {
			label = formatBytesTick(v)
		}
		ticks = append(ticks, tick{Pos: v / top * 100, Label: label + suffix})
		grid = append(grid, f1(plotH-v/top*plotH))
	}
	return ticks, grid
}

// formatNumber renders a tick or a rate: thousands separated, at most two
// decimals, none when whole.
func formatNumber(v float64) string {
	if v >= 100 || v == math.Trunc(v) {
		return FormatInt(int64(math.Round(v)))
	}
	return strings.TrimRight(strings.TrimRight(strconv.FormatFloat(v, 'f', 2, 64), "0"), ".")
}

// formatBytesTick renders a byte count of a nice scale: "256 MiB",
// "2.5 GiB".
func formatBytesTick(v float64) string {
	if v < 1024 {
		return formatNumber(v) + " B"
	}
	exp := 0
	for v >= 1024 && exp < 6 {
		v /= 1024
		exp++
	}
	return formatNumber(v) + " " + string("KMGTPE"[exp-1]) + "iB"
}

// timeSteps are the time axis's steps under a month; past them it steps
// by months.
var timeSteps = []time.Duration{time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute,
	15 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour,
	12 * time.Hour, 24 * time.Hour, 48 * time.Hour, 7 * 24 * time.Hour, 14 * 24 * time.Hour}

// maxTimeTicks keeps the time axis readable on a phone.
const maxTimeTicks = 5

// timeTicks labels the time axis from start to end (UTC): times of day,
// dates at midnight and for steps of days, months and years beyond.
func timeTicks(start, end time.Time) []tick {
	span := end.Sub(start)
	if span <= 0 {
		return nil
	}
	var ts []time.Time
	var layout string
	found := false
	for _, step := range timeSteps {
		if span/step >= maxTimeTicks {
			continue
		}
		found = true
		for t := start.Truncate(step); !t.After(end); t = t.Add(step) {
			if !t.Before(start) {
				ts = append(ts, t)
			}
		}
		layout = "15:04"
		if step >= 24*time.Hour {
			layout = "Jan 2"
		}
		break
	}
	if !found {
		months := 1
		for _, m := range []int{1, 2, 3, 6, 12, 24, 60} {
			months = m
			if span/(time.Duration(m)*30*24*time.Hour) < maxTimeTicks {
				break
			}
		}
		s := start.UTC()
		t := time.Date(s.Year(), s.Month(), 1, 0, 0, 0, 0, time.UTC)
		for (int(t.Month())-1)%months != 0 || t.Before(start) {
			t = t.AddDate(0, 1, 0)
		}
		for ; !t.After(end); t = t.AddDate(0, months, 0) {
			ts = append(ts, t)
		}
		layout = "Jan 2006"
	}
	var out []tick
	for _, t := range ts {
		t = t.UTC()
		label := t.Format(layout)
		if layout == "15:04" && t.Hour() == 0 && t.Minute() == 0 && span > 6*time.Hour {
			label = t.Format("Jan 2")
		}
		pos := float64(t.Sub(start)) / float64(span) * 100
		class := ""
		switch {
		case pos < 8:
			class = "start"
		case pos > 92:
			class = "end"
		}
		out = append(out, tick{Pos: pos, Label: label, Class: class})
	}
	return out
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func addSat(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func f1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }
