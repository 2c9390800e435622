package views

import (
	"fmt"
	"strconv"
	"time"

	"tracker/stats"
)

// The chart's drawing area, in SVG units.
const (
	chartW = 600.0
	chartH = 150.0
)

// bar is one bucket of a chart, placed.
type bar struct {
	X, Y, W, H string
	Label      string
}

type chartView struct {
	Bars                []bar
	Max                 int64
	Total               int64
	Start, End          time.Time
	Summary             string
	MaxLabel, MidLabel  string
	StartLabel, EndText string
	Measure             string
}

// Chart measures: what the bars count.
const (
	ChartItems = "items"
	ChartBytes = "bytes"
)

func layoutChart(c stats.Chart, measure string) chartView {
	v := chartView{}
	if len(c.Points) == 0 {
		return v
	}
	value := func(p stats.Point) int64 { return p.Items }
	format := FormatInt
	if measure == ChartBytes {
		value, format = func(p stats.Point) int64 { return p.Bytes }, FormatBytes
	}
	for _, p := range c.Points {
		v.Max = max(v.Max, value(p))
		v.Total += value(p)
	}
	w := chartW / float64(len(c.Points))
	for i, p := range c.Points {
		h := 0.0
		if v.Max > 0 {
			h = float64(value(p)) / float64(v.Max) * chartH
		}
		v.Bars = append(v.Bars, bar{
			X: f1(float64(i) * w), Y: f1(chartH - h), W: f1(max(w-0.5, 0.5)), H: f1(h),
			Label: fmt.Sprintf("%s: %s items, %s", When(p.At), FormatInt(p.Items), FormatBytes(p.Bytes)),
		})
	}
	v.Start, v.End = c.Points[0].At, c.Points[len(c.Points)-1].At.Add(time.Duration(c.Bucket)*time.Second)
	v.MaxLabel, v.MidLabel = format(v.Max), format(v.Max/2)
	v.StartLabel, v.EndText = When(v.Start), When(v.End)
	what := "Items done"
	if measure == ChartBytes {
		what = "Bytes downloaded"
	}
	v.Measure = measure
	v.Summary = fmt.Sprintf("%s per %s from %s to %s: %s in all, at most %s in one bucket",
		what, FormatDuration(time.Duration(c.Bucket)*time.Second), v.StartLabel, v.EndText, format(v.Total), v.MaxLabel)
	return v
}

func f1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }
