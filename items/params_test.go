package items

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"tracker/db/dbtest"
)

// A number is stored as PostgreSQL's jsonb keeps and prints it: what the
// tracker measures is what every answer carries. Numbers a float64 does not
// hold are refused, never sent to PostgreSQL to refuse or to keep at full
// length.
func TestStoredNumbersAsPostgreSQLPrintsThem(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	for _, n := range []string{
		"0", "7", "-7", "123456789012345678901", "1.50", "1.50e1", "0.10e1", "12.5e-1", "1.5e-7", "-1.5E+3",
		"1e308", "1.7976931348623157e308", "5e-324", "0.00001e-300", "0.0001e10", "1e-0005", "100e-2",
	} {
		got, err := storedNumber(json.Number(n))
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		var printed string
		if err := pool.QueryRow(context.Background(), "SELECT ($1::text::jsonb)::text", "["+n+"]").Scan(&printed); err != nil {
			t.Fatal(err)
		}
		if "["+string(got)+"]" != printed {
			t.Errorf("%s: stored as %s, PostgreSQL prints %s", n, got, printed)
		}
	}
	// Zero in any form is 0.
	for _, n := range []string{"-0", "0.000", "-0.0e-3", "0e-20000", "0e400"} {
		if got, err := storedNumber(json.Number(n)); err != nil || got != "0" {
			t.Errorf("%s: %s, %v; want 0", n, got, err)
		}
	}
	for _, n := range []string{"1e-20000", "1e-16383", "1e-400", "-2e-324", "1e309", "-1e400", "1e99999999999999999999"} {
		if got, err := storedNumber(json.Number(n)); err == nil {
			t.Errorf("%s: stored as %.40s...", n, got)
		}
	}
}

// The bound of a document is measured on it as stored: numbers written out,
// <, > and & escaped.
func TestDocumentBoundMeasuredAsStored(t *testing.T) {
	t.Parallel()
	fits := `{"s":"` + strings.Repeat("<", (MaxDocumentBytes-8)/6) + `"}`
	if _, err := normalDocument("result", []byte(fits)); err != nil {
		t.Fatalf("%d bytes as stored: %v", len(fits)+(MaxDocumentBytes-8)/6*5, err)
	}
	for name, doc := range map[string]string{
		"escaped":     `{"s":"` + strings.Repeat("<", (MaxDocumentBytes-8)/6+1) + `"}`,
		"written out": "[" + strings.Repeat("1e-300,", MaxDocumentBytes/302) + "1]",
	} {
		if _, err := normalDocument("result", []byte(doc)); err == nil || !strings.Contains(err.Error(), "as stored") {
			t.Errorf("%s (%d bytes sent): %v", name, len(doc), err)
		}
	}
	// Blanks are not stored: what is sent may be larger than what is kept.
	spaced := "{" + strings.Repeat(" ", MaxDocumentBytes) + `"a":1}`
	if got, err := normalDocument("result", []byte(spaced)); err != nil || string(got) != `{"a":1}` {
		t.Fatalf("a spaced document: %s, %v", got, err)
	}
}
