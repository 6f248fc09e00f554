package table

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// sample is a table that exercises every cell kind, missing values,
// quoting, notes, warnings and the partial marker.
func sample() *Table {
	t := &Table{
		Title: "sweep: mean response time against load",
		Meta: []Field{
			{"version", "v0.1.0-test"},
			{"seed", "42"},
			{"policy", "jsq(d=2)"},
			{"note", "stale view, period 1"},
			{"empty", ""},
			{"tol", "1e-4"},
			{"exact", "false"},
			{"bigseed", "18446744073709551615"},
		},
		Command: "herd sweep --seed 42",
		Columns: []Column{
			{Name: "policy"},
			{Name: "d"},
			{Name: "rho"},
			{Name: "mean"},
			{Name: "p99", Digits: 3},
			{Name: "stable"},
		},
		Warnings: []string{"rho=0.99: model did not converge in 500 iterations"},
		Notes:    []string{"tipping point: rho=0.95 (bracket 0.94..0.96)"},
		Partial:  true,
	}
	t.AddRow("random", 1, 0.5, 2.0, 4.6051701859880918, true)
	t.AddRow("jsq", int64(2), 0.9, 2.6140000000000003, 1370.4, true)
	t.AddRow("jsq, \"stale\"", 2, 0.95, 0.00123, 1.23e-7, false)
	t.AddRow("round robin", 10, 0.99, math.NaN(), math.Inf(1), nil)
	t.AddRow("x", -3, 1.0, -9.99996, 2.5e12, false)
	return t
}

// TestGolden compares each writer's output with testdata/NAME.FORMAT.
// Regenerate with: go test ./cmd/internal/table -update
func TestGolden(t *testing.T) {
	tables := []struct {
		name  string
		table func() *Table
	}{
		{"sample", sample},
		{"empty", func() *Table { return &Table{Columns: []Column{{Name: "a"}, {Name: "b"}}} }},
	}
	for _, tt := range tables {
		for _, format := range Formats {
			t.Run(tt.name+"."+format, func(t *testing.T) {
				t.Parallel()
				var buf bytes.Buffer
				if err := tt.table().Write(&buf, format); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join("testdata", tt.name+"."+format)
				if *update {
					if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if got := buf.String(); got != string(want) {
					t.Errorf("%s differs from golden file\ngot:\n%s\nwant:\n%s", format, got, want)
				}
			})
		}
	}
}

func TestFormatText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		f      float64
		digits int
		want   string
	}{
		// The examples of the package contract.
		{"four digits", 2.614, 4, "2.614"},
		{"integer part kept", 1370.4, 4, "1370"},
		{"small no exponent", 0.00123, 4, "0.00123"},
		{"zero digits means four", 2.61449, 0, "2.614"},
		{"trailing zeros trimmed", 2.5, 4, "2.5"},
		{"integer valued", 2, 4, "2"},
		{"zero", 0, 4, "0"},
		{"negative zero", math.Copysign(0, -1), 4, "0"},
		{"rounds up a decade", 9.99996, 4, "10"},
		{"rounds up below one", 0.099996, 4, "0.1"},
		{"negative", -9.99996, 4, "-10"},
		{"more integer digits than digits", 12345.6, 4, "12346"},
		{"lower edge", 1e-4, 4, "0.0001"},
		{"below lower edge", 1.23e-7, 3, "1.23e-07"},
		{"upper edge", 999999999, 4, "999999999"},
		{"above upper edge", 2.5e12, 4, "2.5e+12"},
		{"three digits", 4.6051701859880918, 3, "4.61"},
		{"many digits clamped", math.Pi, 40, "3.1415926535897931"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := formatText(tt.f, tt.digits); got != tt.want {
				t.Errorf("formatText(%v, %d) = %q, want %q", tt.f, tt.digits, got, tt.want)
			}
		})
	}
}

// TestExactColumn: a column marked Exact writes its floats in text as the
// shortest decimal that reads back (no exponent for 1e-4 <= |f| < 1e9),
// whatever Digits; the other columns keep their digits.
func TestExactColumn(t *testing.T) {
	t.Parallel()
	tb := Table{Columns: []Column{{Name: "load", Exact: true}, {Name: "refresh", Exact: true, Digits: 3}, {Name: "x"}},
		Rows: [][]any{{0.999999, 8341.059375, 0.999999}, {1e-9, 1e6, 2.5}}}
	var b strings.Builder
	if err := tb.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "    load      refresh    x\n" +
		"0.999999  8341.059375    1\n" +
		"   1e-09      1000000  2.5\n"
	if b.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestCSVRoundTrip checks that every finite float reads back bit for bit
// and that missing values are empty fields, never "NaN".
func TestCSVRoundTrip(t *testing.T) {
	t.Parallel()
	floats := []float64{0.1, 1.0 / 3, 2.6140000000000003, 1e-300, 5e-324, math.MaxFloat64, -7.25}
	tab := &Table{Columns: []Column{{Name: "x"}}}
	for _, f := range floats {
		tab.AddRow(f)
	}
	tab.AddRow(math.NaN())
	tab.AddRow(math.Inf(-1))
	tab.AddRow(nil)
	var buf bytes.Buffer
	if err := tab.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1+len(floats)+3 {
		t.Fatalf("got %d records, want %d", len(recs), 1+len(floats)+3)
	}
	for i, f := range floats {
		got, err := strconv.ParseFloat(recs[i+1][0], 64)
		if err != nil || got != f {
			t.Errorf("row %d: read back %v (err %v), want %v", i, got, err, f)
		}
	}
	for _, r := range recs[1+len(floats):] {
		if r[0] != "" {
			t.Errorf("missing value written as %q, want empty field", r[0])
		}
	}
}

// jsonDoc is the documented shape of WriteJSON's output, as a Go program
// reads it with encoding/json.
type jsonDoc struct {
	Meta    map[string]any   `json:"meta"`
	Columns []string         `json:"columns"`
	Rows    []map[string]any `json:"rows"`
}

// TestJSONRoundTrip decodes the JSON output into the documented shape and
// checks typed meta values, float round-trip, nulls, notes and warnings.
func TestJSONRoundTrip(t *testing.T) {
	t.Parallel()
	tab := sample()
	var buf bytes.Buffer
	if err := tab.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc jsonDoc
	dec := json.NewDecoder(&buf)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("decode: %v\n%s", err, buf.String())
	}
	wantMeta := map[string]any{
		"title":    tab.Title,
		"command":  tab.Command,
		"partial":  true,
		"version":  "v0.1.0-test",
		"seed":     42.0, // a number, not "42"
		"policy":   "jsq(d=2)",
		"note":     "stale view, period 1",
		"empty":    "",
		"tol":      1e-4,
		"exact":    false,
		"bigseed":  "18446744073709551615", // above 2⁵³: kept exact as a string
		"notes":    []any{tab.Notes[0]},
		"warnings": []any{tab.Warnings[0]},
	}
	for k, want := range wantMeta {
		got, ok := doc.Meta[k]
		if !ok {
			t.Errorf("meta[%q] missing", k)
			continue
		}
		if gs, ws := fmt.Sprintf("%#v", got), fmt.Sprintf("%#v", want); gs != ws {
			t.Errorf("meta[%q] = %s, want %s", k, gs, ws)
		}
	}
	if len(doc.Meta) != len(wantMeta) {
		t.Errorf("meta has %d keys, want %d: %v", len(doc.Meta), len(wantMeta), doc.Meta)
	}
	if len(doc.Columns) != len(tab.Columns) || len(doc.Rows) != len(tab.Rows) {
		t.Fatalf("got %d columns %d rows, want %d %d", len(doc.Columns), len(doc.Rows), len(tab.Columns), len(tab.Rows))
	}
	for j, c := range tab.Columns {
		if doc.Columns[j] != c.Name {
			t.Errorf("columns[%d] = %q, want %q", j, doc.Columns[j], c.Name)
		}
	}
	if got := doc.Rows[1]["p99"]; got != 1370.4 {
		t.Errorf("rows[1].p99 = %v, want 1370.4", got)
	}
	if got := doc.Rows[1]["mean"]; got != 2.6140000000000003 {
		t.Errorf("rows[1].mean = %v, want 2.6140000000000003 bit for bit", got)
	}
	if got := doc.Rows[2]["policy"]; got != "jsq, \"stale\"" {
		t.Errorf("rows[2].policy = %v, want the quoted string", got)
	}
	for _, c := range []string{"mean", "p99", "stable"} {
		got, ok := doc.Rows[3][c]
		if !ok || got != nil {
			t.Errorf("rows[3].%s = %v (present %v), want null (NaN, Inf, nil)", c, got, ok)
		}
	}
}

// TestCSVMetaColumns checks that the CSV carries everything the text
// output says, as columns after the table's own.
func TestCSVMetaColumns(t *testing.T) {
	t.Parallel()
	tab := sample()
	var buf bytes.Buffer
	if err := tab.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := recs[0]
	col := map[string]int{}
	for j, h := range head {
		col[h] = j
	}
	for j, c := range tab.Columns {
		if head[j] != c.Name {
			t.Errorf("header[%d] = %q, want %q (own columns first, in order)", j, head[j], c.Name)
		}
	}
	want := map[string]string{
		"meta_title":    tab.Title,
		"meta_command":  tab.Command,
		"meta_seed":     "42",
		"meta_version":  "v0.1.0-test",
		"meta_notes":    tab.Notes[0],
		"meta_warnings": tab.Warnings[0],
		"meta_partial":  "true",
	}
	for name, v := range want {
		j, ok := col[name]
		if !ok {
			t.Errorf("no column %q in %q", name, head)
			continue
		}
		for i, r := range recs[1:] {
			if r[j] != v {
				t.Errorf("row %d %s = %q, want %q", i, name, r[j], v)
			}
		}
	}
}

// TestMetaKeys checks that reserved, empty and repeated keys and repeated
// column names are errors from every writer.
func TestMetaKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		tab  Table
		want string
	}{
		{"reserved", Table{Meta: []Field{{"warnings", "x"}}}, `table: meta key "warnings" is repeated or reserved`},
		{"repeated", Table{Meta: []Field{{"seed", "1"}, {"seed", "2"}}}, `table: meta key "seed" is repeated or reserved`},
		{"empty", Table{Meta: []Field{{"", "1"}}}, "table: empty meta key"},
		{"columns", Table{Columns: []Column{{Name: "a"}, {Name: "a"}}}, `table: column "a" is repeated`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, format := range Formats {
				err := tt.tab.Write(&bytes.Buffer{}, format)
				if err == nil || err.Error() != tt.want {
					t.Errorf("%s: err = %v, want %q", format, err, tt.want)
				}
			}
		})
	}
}

func TestAddRowPanics(t *testing.T) {
	t.Parallel()
	defer func() {
		const want = "table: row has 1 cells, want 2"
		if r := recover(); r != want {
			t.Errorf("panic = %v, want %q", r, want)
		}
	}()
	tab := &Table{Columns: []Column{{Name: "a"}, {Name: "b"}}}
	tab.AddRow(1)
}

// TestRaggedRows checks that rows set without AddRow give an error, not a
// panic, from every writer.
func TestRaggedRows(t *testing.T) {
	t.Parallel()
	tab := &Table{Columns: []Column{{Name: "a"}}, Rows: [][]any{{1}, {1, 2}}}
	for _, format := range Formats {
		err := tab.Write(&bytes.Buffer{}, format)
		const want = "table: row 1 has 2 cells, want 1"
		if err == nil || err.Error() != want {
			t.Errorf("%s: err = %v, want %q", format, err, want)
		}
	}
}

// TestColumnTypes checks that a column mixing JSON types (a period that is
// "aperiodic" in one row and 2 in another) is refused by every writer,
// while ints with floats (both numbers) and missing cells with anything
// are not.
func TestColumnTypes(t *testing.T) {
	t.Parallel()
	mixed := &Table{Columns: []Column{{Name: "x"}, {Name: "period"}}, Rows: [][]any{{1, 2}, {2.5, nil}, {math.NaN(), "aperiodic"}}}
	ok := &Table{Columns: []Column{{Name: "x"}, {Name: "kind"}}, Rows: [][]any{{1, "fixed"}, {2.5, nil}, {math.NaN(), "aperiodic"}}}
	for _, format := range Formats {
		err := mixed.Write(&bytes.Buffer{}, format)
		const want = `table: column "period" holds a number in row 0 and a string in row 2`
		if err == nil || err.Error() != want {
			t.Errorf("%s: err = %v, want %q", format, err, want)
		}
		if err := ok.Write(&bytes.Buffer{}, format); err != nil {
			t.Errorf("%s: one type per column: %v", format, err)
		}
	}
}

func TestParseFormat(t *testing.T) {
	t.Parallel()
	for _, s := range Formats {
		if got, err := ParseFormat(s); err != nil || got != s {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q, nil", s, got, err, s)
		}
	}
	for _, s := range []string{"", "TEXT", "tsv", "x"} {
		_, err := ParseFormat(s)
		want := "--format " + strconv.Quote(s) + ": want text, csv or json"
		if err == nil || err.Error() != want {
			t.Errorf("ParseFormat(%q) error = %v, want %q", s, err, want)
		}
	}
	if err := (&Table{}).Write(&bytes.Buffer{}, "xml"); err == nil || !strings.Contains(err.Error(), "want text, csv or json") {
		t.Errorf("Write(xml) error = %v, want the ParseFormat error", err)
	}
}
