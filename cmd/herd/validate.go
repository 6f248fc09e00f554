package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"

	"herd/cmd/internal/table"
	"herd/compare"
	"herd/compare/progress"
)

// validateChecks runs herd validate's checks: compare.Validate, which
// the tests of the command's progress replace with checks of their own
// (even the quick checks are too long to run there once per --progress
// value).
var validateChecks = compare.Validate

func runValidate(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "validate", "validate [--quick] [flags]")
	quick := fs.Bool("quick", false, "CI-sized run lengths and the fast checks only")
	seed := seedFlag(fs)
	tableOnly := fs.Bool("table", false, "print the table of published figures, their sources, readings and disputes (markdown), and run nothing")
	out := addOutputFlags(fs, "simulation runs")
	mode := addValidateProgressFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	fmtName, err := out.check()
	if err != nil {
		return err
	}
	if err := checkProgressMode(*mode); err != nil {
		return err
	}
	if *tableOnly {
		_, err := io.WriteString(e.stdout, compare.Table)
		return err
	}
	prog := progress.NewLineMode(e.stderr, isTerminal(e.stderr), progress.Mode(*mode), "validate", "checks", nil)
	rows, runErr := validateChecks(ctx, compare.Options{Quick: *quick, Seed: *seed, Workers: *out.workers, Progress: prog.Update})
	prog.Finish()

	t := validateTable(rows, *quick, *seed)
	if err := writeTable(ctx, e, t, fmtName, nil); err != nil {
		return err
	}
	if runErr != nil {
		return runErr
	}
	if n := compare.Failed(rows); n > 0 {
		return fmt.Errorf("%d check(s) failed", n)
	}
	return nil
}

// validateTable is herd validate's table: one row per check, and the
// counts of each verdict.
func validateTable(rows []compare.Row, quick bool, seed uint64) *table.Table {
	t := &table.Table{
		Title: "herd validate: closed forms, models and the simulator against validation.md",
		Meta: []table.Field{
			{Key: "version", Value: version},
			{Key: "quick", Value: strconv.FormatBool(quick)},
			{Key: "seed", Value: strconv.FormatUint(seed, 10)},
		},
		Columns: []table.Column{
			{Name: "check"}, {Name: "source"}, {Name: "published"},
			{Name: "closed_form_or_model", Digits: 6}, {Name: "simulated", Digits: 6}, {Name: "simulated_se", Digits: 2},
			{Name: "z", Digits: 3}, {Name: "verdict"}, {Name: "note"}, {Name: "runs"},
		},
	}
	count := map[compare.Verdict]int{}
	for _, r := range rows {
		count[r.Verdict]++
		t.AddRow(r.Check, r.Source, r.Published, finite(r.Reference), finite(r.Simulated), finite(r.SimulatedSE),
			finite(r.Z), string(r.Verdict), r.Note, r.Runs)
	}
	t.Notes = append(t.Notes, fmt.Sprintf("%d checks: %d pass, %d fail, %d disputed",
		len(rows), count[compare.Pass], count[compare.Fail], count[compare.Disputed]),
		fmt.Sprintf("a simulated mean over n runs passes within t(%g, n−1) standard errors of its reference (false-alarm rate %g per check); disputed: herd misses the published figure but agrees with the independent evidence that validation.md records (a published re-run, or herd's refresh map and a second seed stream); the figures, their sources and readings: herd validate --table",
			1-compare.FalseAlarm/2, compare.FalseAlarm))
	return t
}

// finite returns x, or nil (printed as missing) for NaN and ±Inf.
func finite(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return x
}
