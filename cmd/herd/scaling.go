package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"

	"herd/cmd/internal/table"
	"herd/compare"
)

func runScaling(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "scaling", "scaling [bracket flags] [--from BRACKETS.csv]")
	f := addBracketFlags(fs)
	from := fs.String("from", "", "fit the brackets in FILE (herd bracket --format csv output) instead of running them")
	if err := parse(fs, args); err != nil {
		return err
	}
	fmtName, err := f.outFlags.check()
	if err != nil {
		return err
	}
	var results []compare.BracketResult
	var runErr error
	if *from != "" {
		if err := checkPlotPath(*f.plot); err != nil {
			return err
		}
		results, err = readBrackets(e.stdin, *from)
		if err != nil {
			return fmt.Errorf("--from: %w", err)
		}
	} else {
		set, err := f.settings()
		if err != nil {
			return err
		}
		results, runErr = brackets(ctx, e, f, set)
	}
	var ns []int
	var lo, hi []float64
	for _, r := range results {
		ns = append(ns, r.Settings.Servers)
		lo = append(lo, r.Lower)
		hi = append(hi, r.Upper)
	}
	fit, fitErr := compare.FitScaling(ns, lo, hi)
	if fitErr != nil && *from != "" {
		return usagef("--from %s: %d bracket(s): %v", *from, len(results), fitErr)
	}
	t := bracketTable(results)
	t.Title = "herd scaling: edge(N) = edge(∞) + a·N^(−β) fitted to the brackets, as T(1−λ)²"
	model := math.NaN()
	if len(results) > 0 {
		model = results[0].ModelScaled
	}
	if fitErr == nil {
		t.Notes = append(t.Notes,
			fmt.Sprintf("fit: edge(∞) = %.4g (range %.4g to %.4g), a = %.4g, β = %.2f, χ² = %.3g over %d brackets",
				fit.EdgeInf, fit.EdgeInfLow, fit.EdgeInfHigh, fit.A, fit.Beta, fit.Chi2, fit.Points),
			fmt.Sprintf("model (refresh map, N → ∞): %.5g", model))
		t.Meta = append(t.Meta,
			table.Field{Key: "edge_inf", Value: strconv.FormatFloat(fit.EdgeInf, 'g', 6, 64)},
			table.Field{Key: "edge_inf_low", Value: strconv.FormatFloat(fit.EdgeInfLow, 'g', 6, 64)},
			table.Field{Key: "edge_inf_high", Value: strconv.FormatFloat(fit.EdgeInfHigh, 'g', 6, 64)},
			table.Field{Key: "beta", Value: strconv.FormatFloat(fit.Beta, 'g', 3, 64)},
			table.Field{Key: "model_scaled", Value: strconv.FormatFloat(model, 'g', 6, 64)})
	} else {
		t.Warnings = append(t.Warnings, fitErr.Error())
	}
	err = writeTable(ctx, e, t, fmtName, func() error {
		if *f.plot == "" {
			return nil
		}
		var fp *compare.ScalingFit
		if fitErr == nil {
			fp = &fit
		}
		return plotBrackets(*f.plot, results, fp)
	})
	if err != nil {
		return err
	}
	return runErr
}

// readBrackets reads herd bracket's CSV (or JSON) output.
func readBrackets(stdin io.Reader, path string) ([]compare.BracketResult, error) {
	recs, err := readRecords(stdin, path) // CSV or JSON; "-" is stdin
	if err != nil {
		return nil, err
	}
	if len(recs) < 2 || len(recs[0]) < 10 || recs[0][0] != "servers" || recs[0][5] != "lower_scaled" {
		return nil, fmt.Errorf("%s: not a herd bracket CSV (want the columns servers,dispatchers,load,runs,refreshes,lower_scaled,…)", path)
	}
	num := func(s string) float64 {
		if s == "" {
			return math.NaN()
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return math.NaN()
		}
		return x
	}
	var out []compare.BracketResult
	for _, r := range recs[1:] {
		n, err := strconv.Atoi(r[0])
		if err != nil {
			return nil, fmt.Errorf("%s: servers %q", path, r[0])
		}
		k, _ := strconv.Atoi(r[1])
		runs, _ := strconv.Atoi(r[3])
		refr, _ := strconv.Atoi(r[4])
		br := compare.BracketResult{
			Settings: compare.BracketSettings{Servers: n, Dispatchers: k, Load: num(r[2]), Runs: runs, Refreshes: refr, Cut: 300},
			Lower:    num(r[5]), Upper: num(r[6]), ModelScaled: num(r[7]), LowerCut: num(r[8]), UpperCut: num(r[9]),
		}
		if len(r) >= 14 { // cut, points, resolution, seed
			br.Settings.Cut, _ = strconv.Atoi(r[10])
			if p, err := strconv.Atoi(r[11]); err == nil && p >= 0 && p <= 10_000 {
				br.Points = make([]compare.PointStat, p)
			}
			br.Settings.Resolution = num(r[12])
			br.Settings.Seed, _ = strconv.ParseUint(r[13], 10, 64)
		}
		out = append(out, br)
	}
	return out, nil
}
