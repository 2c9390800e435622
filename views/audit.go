package views

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// AuditLine is one fact of an audit entry's detail as people read it:
// "rate_limit: 0 → 600" for a change (Change), "items: 2" for the others.
type AuditLine struct {
	Key      string
	From, To string
	Change   bool
}

// AuditDetail reads an entry's detail (a JSON object) into lines, by key:
// a key holding {"from", "to"} is a change; an object is read key by key
// under its own ("settings.banner_html"); empty values are left out (the
// prefix of a move that had none). What is no JSON object is one line, as
// it is stored.
func AuditDetail(detail string) []AuditLine {
	var doc map[string]any
	d := json.NewDecoder(strings.NewReader(detail))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		if strings.TrimSpace(detail) == "" {
			return nil
		}
		return []AuditLine{{To: detail}}
	}
	return auditLines("", doc, nil)
}

func auditLines(prefix string, doc map[string]any, out []AuditLine) []AuditLine {
	for _, k := range slices.Sorted(maps.Keys(doc)) {
		key := prefix + k
		switch v := doc[k].(type) {
		case map[string]any:
			from, okFrom := v["from"]
			to, okTo := v["to"]
			if okFrom && okTo && len(v) == 2 {
				out = append(out, AuditLine{Key: key, From: auditValue(from), To: auditValue(to), Change: true})
				continue
			}
			out = auditLines(key+".", v, out)
		default:
			if s := auditValue(v); s != "" {
				out = append(out, AuditLine{Key: key, To: s})
			}
		}
	}
	return out
}

// auditValue is a value of a detail as text: numbers with their
// thousands separated, lists joined by commas.
func auditValue(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case bool:
		if v {
			return "true"
		}
		return "false"
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return FormatInt(n)
		}
		return v.String()
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = auditValue(e)
		}
		return strings.Join(parts, ", ")
	}
	var b bytes.Buffer
	json.NewEncoder(&b).Encode(v)
	return strings.TrimSpace(b.String())
}

// emptyValue is how an empty value of a change reads.
func emptyValue(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
