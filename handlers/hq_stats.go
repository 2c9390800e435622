package handlers

import (
	"cmp"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"time"

	"tracker/warriors"
)

// hqMaxCoords bounds the points of GET /stats.json and /positions.json, one
// per warrior online with a location: the rest of a crowd beyond it adds
// nothing to a map, and the answer stays bounded however many call.
const hqMaxCoords = 20_000

// hqMaxAge is how long a reader may keep them, as warrior HQ let them be
// kept.
const hqMaxAge = 60 * time.Second

// hqStatsJSON answers GET /stats.json as warrior HQ did: the warriors online
// by the project they picked, most first, as [project, count] pairs (null
// for none), and a point for each located warrior, spread within its whole
// degree so that a map shows a crowd.
func (h *Handler) hqStatsJSON(w http.ResponseWriter, r *http.Request) error {
	return h.hqDocument(w, r, "hq.stats.json", func(o warriors.Online) any {
		type pair [2]any
		projects := []pair{}
		for slug, n := range o.Projects {
			var name any = slug
			if slug == "" {
				name = nil
			}
			projects = append(projects, pair{name, n})
		}
		slices.SortFunc(projects, func(a, b pair) int {
			na, _ := a[0].(string)
			nb, _ := b[0].(string)
			return cmp.Or(cmp.Compare(b[1].(int64), a[1].(int64)), cmp.Compare(na, nb))
		})
		coords := [][2]float64{}
		eachPoint(o.Places, func(lat, lng int) {
			coords = append(coords, [2]float64{spread(lat), spread(lng)})
		})
		return map[string]any{"projects": projects, "coords": coords}
	})
}

// hqPositionsJSON answers GET /positions.json as warrior HQ did: a [lat,
// lng] pair of whole degrees for each located warrior online.
func (h *Handler) hqPositionsJSON(w http.ResponseWriter, r *http.Request) error {
	return h.hqDocument(w, r, "hq.positions.json", func(o warriors.Online) any {
		coords := [][2]int{}
		eachPoint(o.Places, func(lat, lng int) { coords = append(coords, [2]int{lat, lng}) })
		return coords
	})
}

// hqDocument answers with the document doc makes of the warriors online,
// made once per cache lifetime however many ask.
func (h *Handler) hqDocument(w http.ResponseWriter, r *http.Request, route string, doc func(warriors.Online) any) error {
	kept, err := h.reads.pages.Get(r.Context(), pageKey{route: route}, func(ctx context.Context) (keptPage, error) {
		// On the readers' side: warriorsOnline, the Warriors page's and
		// the gauges', reads on the warriors'.
		o, err := h.reads.warriors.Online(ctx, time.Now())
		if err != nil {
			return keptPage{}, err
		}
		ps, err := h.readList(ctx)
		if err != nil {
			return keptPage{}, err
		}
		o.Projects, _ = publicGroups(o.Projects, ps)
		body, err := json.Marshal(doc(o))
		if err != nil {
			return keptPage{}, err
		}
		return keepPage(body)
	})
	if err != nil {
		return err
	}
	return writeCachedGzipped(w, r, kept.body, kept.gzipped, hqMaxAge)
}

// eachPoint calls f once for each warrior of places, hqMaxCoords at most,
// the most crowded places first.
func eachPoint(places []warriors.Place, f func(lat, lng int)) {
	n := 0
	for _, p := range places {
		for range p.Warriors {
			if n == hqMaxCoords {
				return
			}
			f(p.Lat, p.Lng)
			n++
		}
	}
}

// spread is a whole degree moved by up to half a degree either way, to
// two decimals, as warrior HQ spread its points.
func spread(deg int) float64 {
	return math.Round((float64(deg)+rand.Float64()-0.5)*100) / 100
}
