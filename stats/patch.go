package stats

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
)

// The live stream sends a viewer the whole board once, then at each new
// board only what changed: a patch, made once per board for every viewer.
// A patch is the board's JSON diffed against the previous board's as a
// JSON merge patch (RFC 7386: an object lists the keys that changed, null
// for a key gone), with three departures that keep it small:
//
//   - an array that changed is sent as {"$len": n, "$set": [[i, v], …]}:
//     its new length and the elements that changed, each a merge patch of
//     the element it replaces (the rows of the leaders and domains change
//     a few fields each, not their whole);
//   - leaders carry no share: it is the leader's bytes over the board's
//     (read.go), which the client works out;
//   - the feed is {"new": [the newest entries, FeedSent at most],
//     "skipped": how many newer than the last board's were left out}: the
//     client puts them in front of its feed and keeps FeedKept. Nobody
//     reads fifty lines a second; a busy project's feed keeps moving.

// FeedSent is how many new feed entries a patch carries at most.
const FeedSent = 5

// Patch is the difference between two boards' JSON, as the live stream
// sends it (see above).
type Patch struct {
	// From and To are the event ids (EventID) of the board the patch
	// applies to and of the board it leads to.
	From string `json:"from"`
	To   string `json:"id"`
	// Board is the merge patch of the board but its feed; nil when only
	// the feed changed.
	Board map[string]any `json:"board,omitempty"`
	Feed  *FeedPatch     `json:"feed,omitempty"`
}

// FeedPatch is the feed's change: New go in front, newest first.
type FeedPatch struct {
	New     []json.RawMessage `json:"new"`
	Skipped int               `json:"skipped"`
}

// EventID names a board on the live stream: its time in milliseconds.
func EventID(b *Board) string { return fmt.Sprint(b.At.UnixMilli()) }

// Diff is the patch from board a to board b, both as their JSON.
func Diff(a, b []byte, from, to string) ([]byte, error) {
	av, err := decodeJSON(a)
	if err != nil {
		return nil, err
	}
	bv, err := decodeJSON(b)
	if err != nil {
		return nil, err
	}
	am, bm := av.(map[string]any), bv.(map[string]any)
	p := Patch{From: from, To: to, Feed: diffFeed(am["feed"], bm["feed"])}
	am, bm = withoutFeed(am), withoutFeed(bm)
	for _, m := range []map[string]any{am, bm} {
		if ls, ok := m["leaders"].([]any); ok {
			for _, l := range ls {
				if row, ok := l.(map[string]any); ok {
					delete(row, "share")
				}
			}
		}
	}
	if d, changed := diffValue(am, bm); changed {
		p.Board = d.(map[string]any)
	}
	return json.Marshal(p)
}

// Apply is board a (its JSON) with the patch applied, as the client
// applies it: the leaders' shares worked out again.
func Apply(a, patch []byte) ([]byte, error) {
	av, err := decodeJSON(a)
	if err != nil {
		return nil, err
	}
	var p struct {
		Board map[string]any `json:"board"`
		Feed  *FeedPatch     `json:"feed"`
	}
	d := json.NewDecoder(bytes.NewReader(patch))
	d.UseNumber()
	if err := d.Decode(&p); err != nil {
		return nil, err
	}
	m := av.(map[string]any)
	if p.Board != nil {
		m = applyValue(m, p.Board).(map[string]any)
	}
	if p.Feed != nil {
		old, _ := m["feed"].([]any)
		feed := make([]any, 0, FeedKept)
		for _, e := range p.Feed.New {
			v, err := decodeJSON(e)
			if err != nil {
				return nil, err
			}
			feed = append(feed, v)
		}
		feed = append(feed, old...)
		m["feed"] = feed[:min(len(feed), FeedKept)]
	}
	total, _ := lookupNumber(m, "totals", "bytes")
	if ls, ok := m["leaders"].([]any); ok {
		for _, l := range ls {
			if row, ok := l.(map[string]any); ok {
				b, _ := lookupNumber(row, "bytes")
				share := 0.0
				if total > 0 {
					share = b / total
				}
				row["share"] = share
			}
		}
	}
	return json.Marshal(m)
}

func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber() // counts stay exact
	var v any
	err := d.Decode(&v)
	return v, err
}

func lookupNumber(m map[string]any, path ...string) (float64, bool) {
	var v any = m
	for _, k := range path {
		o, ok := v.(map[string]any)
		if !ok {
			return 0, false
		}
		v = o[k]
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

func withoutFeed(m map[string]any) map[string]any {
	m = maps.Clone(m)
	delete(m, "feed")
	return m
}

// diffValue is the patch turning a into b, and whether they differ.
func diffValue(a, b any) (any, bool) {
	switch bv := b.(type) {
	case map[string]any:
		av, ok := a.(map[string]any)
		if !ok {
			return b, true // a whole new object: every key set
		}
		out := map[string]any{}
		for k, v := range bv {
			if d, changed := diffValue(av[k], v); changed {
				out[k] = d
			} else if _, had := av[k]; !had && v != nil {
				out[k] = v
			}
		}
		for k := range av {
			if _, kept := bv[k]; !kept {
				out[k] = nil
			}
		}
		return out, len(out) > 0
	case []any:
		av, ok := a.([]any)
		if !ok {
			return arrayPatch(nil, bv), true
		}
		if reflect.DeepEqual(av, bv) {
			return nil, false
		}
		return arrayPatch(av, bv), true
	default:
		if _, isMap := a.(map[string]any); isMap {
			return b, true
		}
		if _, isArray := a.([]any); isArray {
			return b, true
		}
		return b, !reflect.DeepEqual(a, b)
	}
}

// arrayPatch is the patch turning array a into b, element by element.
// Each element is sent as the patch of the element it replaces, so a
// client applies it the same way whether it had that element or not: an
// object patched onto nothing is the object (its nulls aside, which the
// boards' elements never hold).
func arrayPatch(a, b []any) map[string]any {
	set := []any{}
	for i, v := range b {
		var old any
		if i < len(a) {
			old = a[i]
		}
		if d, changed := diffValue(old, v); changed {
			if _, isMap := v.(map[string]any); !isMap || old == nil {
				d = v
			}
			set = append(set, []any{i, d})
		}
	}
	return map[string]any{"$len": len(b), "$set": set}
}

// applyValue is a with the patch d applied (diffValue's inverse).
func applyValue(a, d any) any {
	dm, ok := d.(map[string]any)
	if !ok {
		return d
	}
	if n, isArray := dm["$len"]; isArray {
		old, _ := a.([]any)
		size, _ := n.(json.Number).Int64()
		out := slices.Clone(old)
		if len(out) > int(size) {
			out = out[:size]
		}
		for len(out) < int(size) {
			out = append(out, nil)
		}
		set, _ := dm["$set"].([]any)
		for _, e := range set {
			pair := e.([]any)
			i, _ := pair[0].(json.Number).Int64()
			out[i] = applyValue(out[i], pair[1])
		}
		return out
	}
	am, ok := a.(map[string]any)
	if !ok {
		am = map[string]any{}
	} else {
		am = maps.Clone(am)
	}
	for k, v := range dm {
		if v == nil {
			delete(am, k)
			continue
		}
		am[k] = applyValue(am[k], v)
	}
	return am
}

// diffFeed is the feed's patch: the entries of b newer than a's newest,
// FeedSent of them at most. Nil when there are none.
func diffFeed(a, b any) *FeedPatch {
	av, _ := a.([]any)
	bv, _ := b.([]any)
	fresh := len(bv)
	if len(av) > 0 {
		for i, e := range bv {
			if reflect.DeepEqual(e, av[0]) {
				fresh = i
				break
			}
		}
	}
	if fresh == 0 {
		return nil
	}
	sent := min(fresh, FeedSent)
	p := &FeedPatch{Skipped: fresh - sent}
	for _, e := range bv[:sent] {
		js, err := json.Marshal(e)
		if err != nil {
			continue // decoded JSON always encodes
		}
		p.New = append(p.New, js)
	}
	return p
}
