// Command mapgen turns the Natural Earth land outline (1:110m, as TopoJSON
// from the world-atlas package) into the SVG path the Warriors page draws
// its map with: equirectangular, one unit per degree, x = longitude + 180,
// y = 90 - latitude, so the map's viewBox is 0 0 360 180. It runs once
// when the source changes (go generate ./static/), and its output is
// committed: the tracker never parses TopoJSON at run time.
//
//	go run ./cmd/mapgen -in static/world/land-110m.json -out static/world/land-110m.svgpath
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"strconv"
	"strings"
)

// topology is the part of a TopoJSON file mapgen reads.
type topology struct {
	Transform *struct {
		Scale     [2]float64 `json:"scale"`
		Translate [2]float64 `json:"translate"`
	} `json:"transform"`
	Arcs    [][][2]float64 `json:"arcs"`
	Objects map[string]geometry
}

type geometry struct {
	Type       string          `json:"type"`
	Arcs       json.RawMessage `json:"arcs"`
	Geometries []geometry      `json:"geometries"`
}

func main() {
	in := flag.String("in", "static/world/land-110m.json", "TopoJSON file")
	object := flag.String("object", "land", "the object to draw")
	out := flag.String("out", "static/world/land-110m.svgpath", "where to write the path")
	flag.Parse()
	b, err := os.ReadFile(*in)
	if err != nil {
		log.Fatal(err)
	}
	var t topology
	if err := json.Unmarshal(b, &t); err != nil {
		log.Fatalf("%s: %v", *in, err)
	}
	g, ok := t.Objects[*object]
	if !ok {
		log.Fatalf("%s has no object %q", *in, *object)
	}
	arcs := t.decodeArcs()
	var d strings.Builder
	if err := draw(&d, g, arcs); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, []byte(d.String()+"\n"), 0o644); err != nil {
		log.Fatal(err)
	}
}

// decodeArcs undoes the quantization (positions delta-encoded, scaled and
// translated) into longitude, latitude pairs.
func (t topology) decodeArcs() [][][2]float64 {
	out := make([][][2]float64, len(t.Arcs))
	for i, arc := range t.Arcs {
		var x, y float64
		for _, p := range arc {
			q := p
			if t.Transform != nil {
				x, y = x+p[0], y+p[1]
				q = [2]float64{x*t.Transform.Scale[0] + t.Transform.Translate[0], y*t.Transform.Scale[1] + t.Transform.Translate[1]}
			}
			out[i] = append(out[i], q)
		}
	}
	return out
}

func draw(d *strings.Builder, g geometry, arcs [][][2]float64) error {
	switch g.Type {
	case "GeometryCollection":
		for _, c := range g.Geometries {
			if err := draw(d, c, arcs); err != nil {
				return err
			}
		}
	case "Polygon":
		var rings [][]int
		if err := json.Unmarshal(g.Arcs, &rings); err != nil {
			return err
		}
		for _, r := range rings {
			ring(d, r, arcs)
		}
	case "MultiPolygon":
		var polys [][][]int
		if err := json.Unmarshal(g.Arcs, &polys); err != nil {
			return err
		}
		for _, rings := range polys {
			for _, r := range rings {
				ring(d, r, arcs)
			}
		}
	default:
		return fmt.Errorf("geometry type %q not drawn", g.Type)
	}
	return nil
}

// ring writes one closed ring: its arcs joined (an arc ~i is arc i
// reversed), then made planar for the map (see planar), projected, at a
// tenth of a degree, in relative moves after the first point (the letter
// once), points that round to the one before left out.
func ring(d *strings.Builder, arcIndexes []int, arcs [][][2]float64) {
	var pts [][2]float64
	for _, i := range arcIndexes {
		var a [][2]float64
		if i >= 0 {
			a = arcs[i]
		} else {
			src := arcs[^i]
			for j := len(src) - 1; j >= 0; j-- {
				a = append(a, src[j])
			}
		}
		if len(pts) > 0 {
			a = a[1:] // the first point repeats the previous arc's last
		}
		pts = append(pts, a...)
	}
	for _, part := range planar(pts) {
		path(d, part)
	}
}

// planar turns a ring on the sphere into rings on the flat map. A ring
// that crosses the antimeridian (Russia's, Fiji's) would draw a line across
// the whole map: its longitudes are made continuous instead, running past
// ±180, and the ring is drawn again a world's width to the side so that
// what runs off one edge shows at the other (the viewBox clips the rest).
// A ring around a pole (Antarctica's) is closed along that pole's edge.
func planar(pts [][2]float64) [][][2]float64 {
	if len(pts) == 0 {
		return nil
	}
	flat := make([][2]float64, len(pts))
	flat[0] = pts[0]
	lo, hi := pts[0][0], pts[0][0]
	for k := 1; k < len(pts); k++ {
		lon := pts[k][0]
		for lon-flat[k-1][0] > 180 {
			lon -= 360
		}
		for lon-flat[k-1][0] < -180 {
			lon += 360
		}
		flat[k] = [2]float64{lon, pts[k][1]}
		lo, hi = min(lo, lon), max(hi, lon)
	}
	first, last := flat[0], flat[len(flat)-1]
	if math.Abs(last[0]-first[0]) > 180 {
		pole := -90.0
		if first[1] > 0 {
			pole = 90
		}
		flat = append(flat, [2]float64{last[0], pole}, [2]float64{first[0], pole})
	}
	var out [][][2]float64
	for _, shift := range []float64{-360, 0, 360} {
		if hi+shift <= -180 || lo+shift >= 180 {
			continue
		}
		moved := make([][2]float64, len(flat))
		for k, p := range flat {
			moved[k] = [2]float64{p[0] + shift, p[1]}
		}
		out = append(out, moved)
	}
	return out
}

// path writes one ring as an SVG subpath.
func path(d *strings.Builder, pts [][2]float64) {
	var prev [2]int
	n := 0
	for k, p := range pts {
		// Tenths of a degree, projected.
		q := [2]int{int(math.Round((p[0] + 180) * 10)), int(math.Round((90 - p[1]) * 10))}
		switch {
		case k == 0:
			d.WriteString("M" + tenths(q[0]) + " " + tenths(q[1]))
		case q == prev:
			continue
		default:
			// After the first "l" the command repeats without its letter.
			if n == 1 {
				d.WriteString("l")
			}
			for i, v := range []string{tenths(q[0] - prev[0]), tenths(q[1] - prev[1])} {
				if !strings.HasPrefix(v, "-") && (i == 1 || n > 1) {
					d.WriteString(" ")
				}
				d.WriteString(v)
			}
		}
		prev = q
		n++
	}
	if n > 0 {
		d.WriteString("z")
	}
}

// tenths writes n tenths as the shortest decimal: 15 → "1.5", -3 → "-.3",
// 20 → "2".
func tenths(n int) string {
	sign := ""
	if n < 0 {
		sign, n = "-", -n
	}
	whole, frac := n/10, n%10
	s := ""
	if whole != 0 {
		s = strconv.Itoa(whole)
	}
	if frac != 0 {
		s += "." + strconv.Itoa(frac)
	}
	if s == "" {
		s = "0"
	}
	return sign + s
}
