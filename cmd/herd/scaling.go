package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/spf13/pflag"

	"herd/cmd/internal/table"
	"herd/compare"
	"herd/meanfield"
)

func runScaling(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "scaling", "scaling [bracket flags] [--from BRACKETS.csv]")
	f := addBracketFlags(fs)
	from := fs.String("from", "", "fit the brackets in FILE (herd bracket --format csv output) instead of running them")
	predict := fs.Bool("predict", false, "also predict the edge at each N from the model, with the brackets' dispatchers, load, sizes, run length, start, detector and seed (the particle runs, meanfield.FiniteEdge: the servers' runs for phase-type sizes, the particle map for exponential ones; go doc herd/meanfield, §8): columns predicted_*, and on --plot a line through the predictions with their 95% interval; tens of thousands of refresh-map applications per N; with --from, give --sizes as the brackets were run (their table does not record them)")
	fitOn := fs.String("fit", "bracket", "what the law is fitted to: bracket (each bracket's middle, its width a uniform error) or half (each bracket's T_½, where half the runs tip, fitted to all its points, with its 95% interval: herd help bracket; with --from, a table that has the half_* columns)")
	if err := parse(fs, args); err != nil {
		return err
	}
	fmtName, err := f.outFlags.check()
	if err != nil {
		return err
	}
	if *fitOn != "bracket" && *fitOn != "half" {
		return usagef("--fit %q: want bracket or half", *fitOn)
	}
	half := *fitOn == "half"
	if fs.Changed("half-width") && !half {
		return usagef("--half-width narrows each bracket's T_½, which only --fit half uses")
	}
	results, runErr, err := scalingBrackets(ctx, e, f, *from, *predict, half)
	if err != nil {
		return err
	}
	var preds []compare.FiniteEdgeRow
	var predErrs []error
	if *predict && ctx.Err() == nil {
		preds, predErrs = predictScaling(ctx, e, *f.progress, results, *f.outFlags.workers)
	}
	fit, fitErr := scalingFit(results, half)
	if fitErr != nil && *from != "" {
		return usagef("--from %s: %d bracket(s): %v", *from, len(results), fitErr)
	}
	t := scalingTable(results, fit, fitErr, half)
	halfWidthNotes(t, results)
	if *from == "" {
		f.modelNote(t)
	}
	var predFailed error
	if *predict {
		predFailed = addPredictions(t, results, preds, predErrs)
	}
	err = writeTable(ctx, e, t, fmtName, func() error {
		if *f.plot == "" {
			return nil
		}
		var fp *compare.ScalingFit
		if fitErr == nil {
			fp = &fit
		}
		p := compare.BracketPlot(results, fp)
		if *predict {
			compare.AddPrediction(p, preds)
		}
		return savePlot(*f.plot, p)
	})
	if err != nil {
		return err
	}
	if runErr != nil {
		return runErr
	}
	if fitErr != nil {
		return usagef("herd scaling: %d %s at distinct N; %v", fitPoints(results, half), fitWhat(half), fitErr)
	}
	return predFailed
}

// addPredictions adds --predict's columns to the scaling table: at each
// row's N the predicted edge, its 95% interval, its distance outside the
// bracket in bracket widths (0 inside; issue 45 asks for at most 1) and
// the seconds it took. A failed prediction leaves its cells empty and
// becomes a warning; the first failure is returned (exit 1). A row not
// predicted (Ctrl-C) has empty cells.
func addPredictions(t *table.Table, results []compare.BracketResult, preds []compare.FiniteEdgeRow, errs []error) error {
	t.Columns = append(t.Columns, table.Column{Name: "predicted_scaled", Digits: 4}, table.Column{Name: "predicted_lower", Digits: 4},
		table.Column{Name: "predicted_upper", Digits: 4}, table.Column{Name: "predicted_widths", Digits: 3},
		table.Column{Name: "predicted_half_z", Digits: 3}, table.Column{Name: "predict_seconds", Digits: 3},
		table.Column{Name: "predicted_logistic", Digits: 4}, table.Column{Name: "predicted_logistic_lower", Digits: 4},
		table.Column{Name: "predicted_logistic_upper", Digits: 4}, table.Column{Name: "predicted_logistic_z", Digits: 3})
	t.Notes = append(t.Notes, "predicted_scaled: T(1−λ)² at which a run from the empty board tips within the brackets' run length with probability ½ at that N, from the model (the particle runs, servers' for phase-type sizes and the particle map's for exponential ones, with the brackets' detector and seed; nothing fitted to the brackets); [predicted_lower, predicted_upper] its 95% interval; predicted_widths: its distance outside the bracket in bracket widths (0 inside); predicted_half_z: its difference from half_scaled, the simulator's own T_½, over their combined standard errors (each its 95% interval's width/3.92; empty where either interval is open)",
		"predicted_logistic: half_scaled's estimator (a logistic fit, herd edge --servers' half_scaled) applied to the prediction's own runs, with its 95% interval [predicted_logistic_lower, predicted_logistic_upper] (empty where it would lie outside the runs' probes, or at an end they do not bound); predicted_logistic_z: its difference from half_scaled as predicted_half_z's, one estimator on both sides (predicted_scaled's hazard fit and the logistic one are different curves and need not agree on the same runs)")
	var first error
	for i := range t.Rows {
		if i >= len(preds) {
			t.Rows[i] = append(t.Rows[i], nil, nil, nil, nil, nil, nil, nil, nil, nil, nil)
			continue
		}
		p := preds[i]
		if errs[i] != nil {
			t.Warnings = append(t.Warnings, fmt.Sprintf("N = %d: no prediction: %v", results[i].Settings.Servers, errs[i]))
			if first == nil {
				first = errs[i]
			}
		}
		t.Rows[i] = append(t.Rows[i], finite(p.Predicted), finite(p.PredictedLower), finite(p.PredictedUpper),
			finite(p.Widths), finite(p.HalfZ), p.PredictSeconds,
			finite(p.PredictedHalf.Scaled), finite(p.PredictedHalf.Lower), finite(p.PredictedHalf.Upper), finite(p.PredictedHalfZ))
	}
	return first
}

// scalingBrackets reads the brackets of --from, or runs them; runErr is
// the runs' error (an interruption keeps the finished brackets), err a
// usage or input error.
func scalingBrackets(ctx context.Context, e *env, f *bracketFlags, from string, predict, half bool) (results []compare.BracketResult, runErr, err error) {
	if from != "" {
		var idle error
		f.fs.Visit(func(fl *pflag.Flag) {
			switch {
			case fl.Name == "from", fl.Name == "plot", fl.Name == "format", fl.Name == "workers", fl.Name == "predict", fl.Name == "fit",
				fl.Name == "progress": // how, not what: a script may pass it either way
			case fl.Name == "sizes" && predict: // the table does not record them
			default:
				if idle == nil {
					idle = idleFlag(fl.Name, true, "the brackets are read from --from "+from+", not run")
				}
			}
		})
		if idle != nil {
			return nil, nil, idle
		}
		if err := checkProgressMode(*f.progress); err != nil {
			return nil, nil, err
		}
		if err := checkPlotPath(*f.plot); err != nil {
			return nil, nil, err
		}
		results, err = readBrackets(e.stdin, from)
		if err != nil {
			return nil, nil, fmt.Errorf("--from: %w", err)
		}
		if predict {
			// herd bracket's table does not record the sizes: the
			// prediction takes --sizes (default exp).
			sizes, _, err := modelSizes(*f.sizes)
			if err != nil {
				return nil, nil, err
			}
			for i := range results {
				results[i].Settings.Sizes = sizes
			}
		}
		if n := fitPoints(results, half); n < compare.MinScalingBrackets {
			return nil, nil, usagef("--from %s: %d %s at distinct N; a fit of edge(∞), a and β needs at least %d (one degree of freedom to test the law)",
				from, n, fitWhat(half), compare.MinScalingBrackets)
		}
		return results, nil, nil
	}
	set, err := f.settings()
	if err != nil {
		return nil, nil, err
	}
	ns := make([]compare.BracketResult, len(set))
	for i, s := range set {
		ns[i].Settings = s
	}
	if n := distinctServers(ns, false); n < compare.MinScalingBrackets {
		return nil, nil, usagef("--servers %s: %d distinct values; a fit of edge(∞), a and β needs at least %d brackets (one degree of freedom to test the law)",
			*f.servers, n, compare.MinScalingBrackets)
	}
	results, runErr = brackets(ctx, e, f, set)
	return results, runErr, nil
}

// scalingTable is the brackets' table with the fit: the meta of text and
// JSON, and columns of the CSV (the fitted curve at each N, and the fit's
// parameters repeated on every row).
func scalingTable(results []compare.BracketResult, fit compare.ScalingFit, fitErr error, half bool) *table.Table {
	t := bracketTable(results)
	t.Title = "herd scaling: edge(N) = edge(∞) + a·N^(−β) fitted to the brackets, as T(1−λ)²"
	on := "bracket"
	if half {
		on = "half"
		t.Title = "herd scaling: edge(N) = edge(∞) + a·N^(−β) fitted to the brackets' T_½, as T(1−λ)²"
	}
	t.Meta = append(t.Meta, table.Field{Key: "fit_on", Value: on})
	model := math.NaN()
	if len(results) > 0 {
		model = results[0].ModelScaled
	}
	t.Columns = append(t.Columns, table.Column{Name: "fit_scaled", Digits: 4}, table.Column{Name: "fit_edge_inf", Digits: 4},
		table.Column{Name: "fit_edge_inf_low", Digits: 4}, table.Column{Name: "fit_edge_inf_high", Digits: 4},
		table.Column{Name: "fit_a", Digits: 4}, table.Column{Name: "fit_beta", Digits: 3},
		table.Column{Name: "fit_chi2", Digits: 3}, table.Column{Name: "fit_df"}, table.Column{Name: "fit_p"})
	for i := range t.Rows {
		if fitErr != nil {
			t.Rows[i] = append(t.Rows[i], nil, nil, nil, nil, nil, nil, nil, nil, nil)
			continue
		}
		n := float64(results[i].Settings.Servers)
		t.Rows[i] = append(t.Rows[i], fit.At(n), fit.EdgeInf, fit.EdgeInfLow, fit.EdgeInfHigh,
			fit.A, fit.Beta, fit.Chi2, fit.DF, fit.PValue)
	}
	if fitErr != nil {
		t.Warnings = append(t.Warnings, fitErr.Error())
		return t
	}
	t.Notes = append(t.Notes,
		fmt.Sprintf("fit: edge(∞) = %.4g (range %.4g to %.4g), a = %.4g, β = %.2f; χ² = %.3g with %d degree(s) of freedom (P(χ² ≥ that) = %.3g) over %d %s",
			fit.EdgeInf, fit.EdgeInfLow, fit.EdgeInfHigh, fit.A, fit.Beta, fit.Chi2, fit.DF, fit.PValue, fit.Points, fitWhat(half)),
		fmt.Sprintf("model (refresh map, N → ∞): %.5g", model))
	g := func(x float64, d int) string { return strconv.FormatFloat(x, 'g', d, 64) }
	t.Meta = append(t.Meta,
		table.Field{Key: "edge_inf", Value: g(fit.EdgeInf, 6)},
		table.Field{Key: "edge_inf_low", Value: g(fit.EdgeInfLow, 6)},
		table.Field{Key: "edge_inf_high", Value: g(fit.EdgeInfHigh, 6)},
		table.Field{Key: "a", Value: g(fit.A, 6)},
		table.Field{Key: "beta", Value: g(fit.Beta, 3)},
		table.Field{Key: "chi2", Value: g(fit.Chi2, 6)},
		table.Field{Key: "df", Value: strconv.Itoa(fit.DF)},
		table.Field{Key: "p_value", Value: g(fit.PValue, 4)},
		table.Field{Key: "model_scaled", Value: g(model, 6)})
	if fit.BetaOnBound {
		t.Warnings = append(t.Warnings, fmt.Sprintf("β = %.2f sits on its search bound [%g, %g]: the best fit lies outside it, so edge(∞) and its range are not to be trusted",
			fit.Beta, compare.BetaMin, compare.BetaMax))
	}
	return t
}

// scalingFit fits the law to the brackets (compare.FitScaling) or, with
// half, to their T_½ (compare.FitScalingHalf).
func scalingFit(results []compare.BracketResult, half bool) (compare.ScalingFit, error) {
	var ns []int
	var lo, hi []float64
	var halves []compare.TipHalf
	for _, r := range results {
		ns = append(ns, r.Settings.Servers)
		lo = append(lo, r.Lower)
		hi = append(hi, r.Upper)
		halves = append(halves, r.Half)
	}
	if half {
		return compare.FitScalingHalf(ns, halves)
	}
	return compare.FitScaling(ns, lo, hi)
}

// fitPoints counts what the fit can use: the distinct N with a complete
// bracket, or with half a bounded T_½.
func fitPoints(results []compare.BracketResult, half bool) int {
	if !half {
		return distinctServers(results, true)
	}
	seen := map[int]bool{}
	for _, r := range results {
		if r.Half.Bounded() {
			seen[r.Settings.Servers] = true
		}
	}
	return len(seen)
}

// fitWhat names fitPoints' points.
func fitWhat(half bool) string {
	if half {
		return "bounded T_½ (half_* columns)"
	}
	return "complete brackets"
}

// distinctServers counts the distinct N among results, only those with a
// complete bracket when complete is set.
func distinctServers(results []compare.BracketResult, complete bool) int {
	seen := map[int]bool{}
	for _, r := range results {
		if complete && (math.IsNaN(r.Lower) || math.IsNaN(r.Upper) || !(r.Upper > r.Lower)) {
			continue
		}
		seen[r.Settings.Servers] = true
	}
	return len(seen)
}

// readBrackets reads herd bracket's CSV (or JSON) output.
func readBrackets(stdin io.Reader, path string) ([]compare.BracketResult, error) {
	recs, err := readRecords(stdin, path) // CSV or JSON; "-" is stdin
	if err != nil {
		return nil, err
	}
	res, err := compare.BracketsFromTable(recs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return res, nil
}

// predictScaling runs compare.PredictScaling with progress in mode
// (--progress): a line per prediction on a terminal, else a heartbeat
// naming the N at work and the refresh periods its particle runs have
// simulated (each takes tens of thousands of maps).
func predictScaling(ctx context.Context, e *env, mode string, results []compare.BracketResult, workers int) ([]compare.FiniteEdgeRow, []error) {
	labels := make([]string, len(results))
	for i, r := range results {
		labels[i] = fmt.Sprintf("N=%d", r.Settings.Servers)
	}
	p := newFiniteProgress(e, mode, "scaling --predict", "predictions", labels)
	defer p.close()
	return compare.PredictScaling(ctx, results, workers, compare.PredictHooks{
		Begin: func(i int) (func() bool, func(meanfield.FiniteEdgeProgress)) {
			return p.begin(ctx, i, 0), p.edgeProgress(i)
		},
		End: func(i int, err error) {
			result := "done"
			if err != nil {
				result = "failed"
			}
			p.end(i, result)
		},
	})
}
