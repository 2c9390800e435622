package views

import (
	"reflect"
	"testing"
)

// An audit entry's detail reads as lines: a change as from → to, a count
// with its thousands separated, an object's keys under its own, empty
// values left out; what is no JSON object is shown as stored.
func TestAuditDetail(t *testing.T) {
	for detail, want := range map[string][]AuditLine{
		`{"rate_limit": {"to": "600", "from": "0"}}`: {{Key: "rate_limit", From: "0", To: "600", Change: true}},
		`{"to": "secondary", "from": "todo", "items": 12000, "prefix": "", "pattern": ""}`: {
			{Key: "from", To: "todo"}, {Key: "items", To: "12,000"}, {Key: "to", To: "secondary"}},
		`{"settings": {"banner_html": "<b>Hi</b>", "seesaw_version": "0.9.1"}}`: {
			{Key: "settings.banner_html", To: "<b>Hi</b>"}, {Key: "settings.seesaw_version", To: "0.9.1"}},
		`{"enabled": false, "weight": 1.5, "ids": [1, 2]}`:         {{Key: "enabled", To: "false"}, {Key: "ids", To: "1, 2"}, {Key: "weight", To: "1.5"}},
		`{"deadline": {"from": "", "to": "2027-01-31T23:59:30Z"}}`: {{Key: "deadline", From: "", To: "2027-01-31T23:59:30Z", Change: true}},
		`{}`:       nil,
		``:         nil,
		`not json`: {{To: "not json"}},
	} {
		if got := AuditDetail(detail); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, want %+v", detail, got, want)
		}
	}
}
