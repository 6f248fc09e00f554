package main

import (
	"encoding/csv"
	"slices"
	"strings"
	"testing"
)

// Every model command rejects sizes without a refresh map (exit 2, naming
// --sizes and the allowed families), bad parameters, and parameters past
// the map's range (naming the ranges).
func TestSizesBadInput(t *testing.T) {
	t.Parallel()
	for _, cmd := range [][]string{
		{"edge", "--dispatchers", "3", "--load", "0.9"},
		{"point", "--refresh", "50"},
		{"hysteresis", "--refresh", "50", "--bistable=false"},
		{"bracket", "--servers", "25", "--grid", "1"},
	} {
		for _, sz := range []string{"det", "pareto:2.5", "h2:0.5", "erlang:0", "erlang:2.5", "gamma:2"} {
			args := append(append([]string(nil), cmd...), "--sizes", sz)
			out, errs, code := herd(t, args...)
			if code != 2 || !strings.Contains(errs, "--sizes") || !strings.Contains(errs, "erlang:K") || out != "" {
				t.Errorf("herd %v: exit %d, stderr %q, stdout %q; want exit 2 naming --sizes and its values", args, code, errs, out)
			}
		}
		// Families the map has, past its range: the range is named.
		for _, sz := range []string{"h2:20000", "erlang:65"} {
			args := append(append([]string(nil), cmd...), "--sizes", sz)
			out, errs, code := herd(t, args...)
			if code != 2 || !strings.Contains(errs, "out of the refresh map's range") || !strings.Contains(errs, "C in [1, 10000]") ||
				!strings.Contains(errs, "K in [1, 64]") || out != "" {
				t.Errorf("herd %v: exit %d, stderr %q, stdout %q; want exit 2 naming the map's ranges", args, code, errs, out)
			}
		}
	}
}

// herd point with phase-type sizes reports the sizes and reaches a
// balanced fixed point where one exists (k = 3, λ = 0.8 has no edge).
func TestPointSizes(t *testing.T) {
	t.Parallel()
	out, errs, code := herd(t, "point", "--dispatchers", "3", "--load", "0.8", "--refresh", "40", "--sizes", "h2:4", "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 2 {
		t.Fatalf("output %q: %v", out, err)
	}
	col := func(name string) string {
		j := slices.Index(recs[0], name)
		if j < 0 {
			t.Fatalf("no column %s in %q", name, recs[0])
		}
		return recs[1][j]
	}
	if col("attractor") != "fixed" || col("balanced") != "true" {
		t.Errorf("k = 3, λ = 0.8, T = 40, h2:4: want a balanced fixed point, got %q", recs[1])
	}
	js, _, code := herd(t, "point", "--dispatchers", "3", "--load", "0.8", "--refresh", "40", "--sizes", "h2:4", "--format", "json")
	if code != 0 || !strings.Contains(js, `"h2:4"`) {
		t.Errorf("json meta lacks the sizes (exit %d): %s", code, js)
	}
}

// herd edge --branch-from outside (0.02, 1000] exits 2 naming the flag.
func TestEdgeBranchFromBadInput(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"0.02", "1001", "NaN", "-3"} { // 0 means the law's estimate
		out, errs, code := herd(t, "edge", "--dispatchers", "3", "--load", "0.9", "--branch-from", v)
		if code != 2 || !strings.Contains(errs, "--branch-from") || out != "" {
			t.Errorf("--branch-from %s: exit %d, stderr %q; want exit 2 naming the flag", v, code, errs)
		}
	}
}
