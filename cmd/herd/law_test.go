package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A cheap herd law: three k at two light loads, coarse tolerance. k = 4 has
// no edge at λ = 0.7 (herd edge finds none down to T(1−λ)² = 0.02), so the
// fit at 0.7 has two points (a warning) and k = 4 has no limit (another).
// The limit map runs on a coarse grid (h = 0.25), enough to exercise it.
var lawSmall = []string{"law", "--dispatchers", "4,5,6", "--load", "0.7,0.75", "--ladder", "0.7,0.75", "--tolerance", "1e-3", "--limit-step", "0.25"}

// herd law writes one table in three formats: the text is golden; CSV and
// JSON, made with other worker counts, carry the same rows cell for cell
// (floats round-trip in both), so the output does not depend on --workers.
// The SVG plot is written, with the limit map's series.
func TestLawOutputs(t *testing.T) {
	t.Parallel()
	text, errs, code := herd(t, append(lawSmall, "--workers", "1")...)
	if code != 0 {
		t.Fatalf("text: exit %d: %s", code, errs)
	}
	golden(t, "law.text", text)
	for _, want := range []string{"no edge", "λ=0.7: no fit", "k=4: no heavy-traffic limit", "λ = 0.75: x_edge = "} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q", want)
		}
	}

	csvOut, errs, code := herd(t, append(lawSmall, "--workers", "2", "--format", "csv")...)
	if code != 0 {
		t.Fatalf("csv: exit %d: %s", code, errs)
	}
	recs, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	plot := filepath.Join(t.TempDir(), "law.svg")
	jsonOut, errs, code := herd(t, append(lawSmall, "--workers", "3", "--format", "json", "--plot", plot)...)
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, errs)
	}
	var obj struct {
		Columns []string         `json:"columns"`
		Rows    []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal([]byte(jsonOut), &obj); err != nil {
		t.Fatal(err)
	}
	// The rows as lists in the columns' order, to compare cell by cell.
	var doc struct {
		Columns []string
		Rows    [][]any
	}
	doc.Columns = obj.Columns
	for _, r := range obj.Rows {
		row := make([]any, len(obj.Columns))
		for j, c := range obj.Columns {
			row[j] = r[c]
		}
		doc.Rows = append(doc.Rows, row)
	}
	// The CSV's own columns come first; meta_ columns follow them.
	if len(recs[0]) < len(doc.Columns) || strings.Join(recs[0][:len(doc.Columns)], ",") != strings.Join(doc.Columns, ",") || len(recs)-1 != len(doc.Rows) {
		t.Fatalf("CSV header %v and %d rows; JSON columns %v and %d rows", recs[0], len(recs)-1, doc.Columns, len(doc.Rows))
	}
	kinds := map[string]int{} // counted only
	for i, row := range doc.Rows {
		kinds[row[0].(string)]++
		for j, cell := range row {
			c := recs[i+1][j]
			switch v := cell.(type) {
			case nil:
				if c != "" {
					t.Errorf("row %d %s: JSON null, CSV %q", i, doc.Columns[j], c)
				}
			case float64:
				f, err := strconv.ParseFloat(c, 64)
				if err != nil || f != v {
					t.Errorf("row %d %s: JSON %v, CSV %q", i, doc.Columns[j], v, c)
				}
			case string:
				if c != v {
					t.Errorf("row %d %s: JSON %q, CSV %q", i, doc.Columns[j], v, c)
				}
			}
		}
	}
	// 6 edges, 1 fit (λ = 0.75), 2 × 2 extrapolation orders (k = 5, 6),
	// 1 fit of the limits is impossible with two limits, 3 verdicts, 3
	// limit-map limits and their fit.
	want := map[string]int{"edge": 6, "fit": 1, "extrapolation": 4, "verdict": 3, "limit_map": 3, "fit_limit_map": 1}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("%d %q rows, want %d (all: %v)", kinds[k], k, n, kinds)
		}
	}
	if b, err := os.ReadFile(plot); err != nil || !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), "limit map x*(k)") {
		t.Errorf("plot: %v, %d bytes; want an SVG with the limit map's series", err, len(b))
	}
}

// Bad input exits 2 naming the flag and its range, before any edge.
func TestLawBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"law", "--load", "1"}, "--load 1: want a number in [1e-06, 1) (the refresh map's range)"},
		{[]string{"law", "--ladder", "0.9,0"}, "--ladder 0: want a number in (0, 1)"},
		{[]string{"law", "--ladder", "0.9"}, "--ladder 0.9: want at least 2 loads"},
		{[]string{"law", "--ladder", "0.9,0.95,0.9"}, "--ladder: 0.9 given twice"},
		{[]string{"law", "--dispatchers", "3,3,4"}, "--dispatchers: 3 given twice"},
		{[]string{"law", "--dispatchers", "0"}, "--dispatchers 0: want an integer in [1, 256] (the refresh map's range)"},
		{[]string{"law", "--dispatchers", "300"}, "--dispatchers 300"},
		// k = 1 and 2 have no edge: nothing to fit, whatever the loads.
		{[]string{"law", "--dispatchers", "1"}, "--dispatchers 1: the fit x = a(k − b) needs at least 3 dispatcher counts k ≥ 3, have 0"},
		{[]string{"law", "--dispatchers", "1,2,3,4"}, "--dispatchers 1,2,3,4: the fit x = a(k − b) needs at least 3 dispatcher counts k ≥ 3, have 2"},
		{[]string{"law", "--order", "4"}, "--order 4: want an integer in [1, 2]"},
		{[]string{"law", "--full-ladder", "--order", "4"}, "--order 4: want an integer in [1, 3]"},
		{[]string{"law", "--limit-step", "0.6"}, "--limit-step 0.6: want a number in [0.001, 0.5]"},
		{[]string{"law", "--order", "-1"}, "--order -1"},
		{[]string{"law", "--band", "0"}, "--band 0: want a number in (0, 1)"},
		{[]string{"law", "--tolerance", "0.5"}, "--tolerance 0.5"},
		{[]string{"law", "--workers", "0"}, "--workers 0"},
		{[]string{"law", "--format", "xml"}, "--format \"xml\""},
		{[]string{"law", "--plot", "x.tiff"}, "--plot \"x.tiff\": want a file name ending in .png, .svg, .pdf or .eps"},
		{[]string{"law", "--sizes", ""}, "--sizes is empty"},
		{[]string{"law", "--sizes", "exp,,h2:2"}, "--sizes \"exp,,h2:2\": empty item in the list"},
		{[]string{"law", "--sizes", "exp,pareto"}, "--sizes \"pareto\": want exp, h2:C"},
		{[]string{"law", "--sizes", "h2:0.5"}, "--sizes \"h2:0.5\""},
		{[]string{"law", "--sizes", "erlang:2,exp,erlang:2"}, "--sizes: erlang:2 given twice"},
	}
	for _, tc := range cases {
		out, errs, code := herd(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("herd %v: exit %d, stderr %q, stdout %q; want exit 2 and a message containing %q",
				tc.args, code, errs, out, tc.want)
		}
	}
}

// An interrupted herd law writes what it has, marked partial, and exits 1;
// unfinished edges are neither failures nor zeros.
func TestLawInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := run(ctx, append(lawSmall, "--format", "json"), &out, &errb)
	if code != 1 || !strings.Contains(out.String(), `"partial": true`) || !strings.Contains(errb.String(), "interrupted") ||
		strings.Contains(out.String(), `"edge"`) {
		t.Errorf("cancelled run: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// A request whose edges leave no load with three to fit (k = 3 has no edge
// at λ = 0.8) prints its table and warnings and fails: exit 1, not 0.
func TestLawNoFit(t *testing.T) {
	t.Parallel()
	out, errs, code := herd(t, "law", "--dispatchers", "3,4,5", "--load", "0.8", "--ladder", "0.7,0.8",
		"--limit-step", "0", "--tolerance", "1e-3", "--format", "csv")
	if code != 1 || !strings.Contains(errs, "no load has the 3 edges a fit needs") || !strings.Contains(out, "edge,4,0.8") {
		t.Errorf("exit %d, stderr %q, stdout %q; want exit 1 after the table, saying nothing was fitted", code, errs, out)
	}
}

// herd law --sizes exp,erlang:2 on lawSmall's cheap grid: the exp rows are
// the rows of plain herd law (the sizes and scv columns aside); the
// erlang:2 rows have scv 0.5, the law 0.5·0.9(k−2) and limit_map rows
// half of exp's (x*(k, C) = C·x*(k), one map scaled); the fits are of x/C;
// fit_sizes pools x/C per load (λ = 0.7: k = 5, 6 of each; λ = 0.75: all
// six). The SVG plot is written.
func TestLawSizes(t *testing.T) {
	t.Parallel()
	plain, errs, code := herd(t, append(lawSmall, "--format", "csv")...)
	if code != 0 {
		t.Fatalf("plain: exit %d: %s", code, errs)
	}
	plot := filepath.Join(t.TempDir(), "law.svg")
	sized, errs, code := herd(t, append(lawSmall, "--format", "csv", "--sizes", "exp,erlang:2", "--plot", plot)...)
	if code != 0 {
		t.Fatalf("--sizes: exit %d: %s", code, errs)
	}
	read := func(s string) [][]string {
		recs, err := csv.NewReader(strings.NewReader(s)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return recs
	}
	p, z := read(plain), read(sized)
	if h := strings.Join(z[0][:4], ","); h != "row,sizes,scv,dispatchers" {
		t.Fatalf("--sizes header starts %q, want row,sizes,scv,dispatchers", h)
	}
	nc := len(lawColumns) // the table's own columns; meta_ columns follow
	var exp, erl, pooled [][]string
	for _, r := range z[1:] {
		switch r[1] {
		case "exp":
			exp = append(exp, append([]string{r[0]}, r[3:nc+2]...))
		case "erlang:2":
			erl = append(erl, r)
		case "":
			pooled = append(pooled, r)
		}
	}
	if len(exp) != len(p)-1 {
		t.Fatalf("%d exp rows, want the %d rows of plain herd law", len(exp), len(p)-1)
	}
	for i, r := range exp {
		if got, want := strings.Join(r, ","), strings.Join(p[i+1][:nc], ","); got != want {
			t.Errorf("exp row %d: %s\nwant %s", i, got, want)
		}
	}
	col := map[string]int{} // looked up only
	for j, c := range z[0] {
		col[c] = j
	}
	num := func(r []string, c string) float64 {
		v, err := strconv.ParseFloat(r[col[c]], 64)
		if err != nil {
			t.Fatalf("%s %q: %v", c, r[col[c]], err)
		}
		return v
	}
	var expMap []float64
	for _, r := range z[1:] {
		if r[1] == "exp" && r[0] == "limit_map" {
			expMap = append(expMap, num(r, "x"))
		}
	}
	j := 0
	for _, r := range erl {
		if num(r, "scv") != 0.5 {
			t.Errorf("erlang:2 row %v: scv %s, want 0.5", r[:4], r[2])
		}
		if r[0] == "edge" || r[0] == "limit_map" {
			// law = C·0.9(k−2), C = 1/2 (fleet.LawScaled).
			if k := num(r, "dispatchers"); math.Abs(num(r, "law")-0.45*(k-2)) > 1e-12 {
				t.Errorf("erlang:2 %s k = %g: law %s, want 0.45(k−2)", r[0], k, r[col["law"]])
			}
		}
		if r[0] == "limit_map" {
			if x := num(r, "x"); x != 0.5*expMap[j] {
				t.Errorf("erlang:2 limit_map %d: x = %g, want half of exp's %g", j, x, expMap[j])
			}
			j++
		}
	}
	if len(pooled) != 2 || pooled[0][0] != "fit_sizes" || pooled[0][col["points"]] != "4" || pooled[1][col["points"]] != "6" {
		t.Errorf("pooled rows %v; want two fit_sizes rows, of 4 and 6 points", pooled)
	}
	if b, err := os.ReadFile(plot); err != nil || !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), "λ = 0.75, erlang:2") {
		t.Errorf("plot: %v, %d bytes; want an SVG with a series per load and sizes", err, len(b))
	}
}
