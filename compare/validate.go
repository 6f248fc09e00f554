package compare

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"herd/sim"
)

// Verdict is the outcome of one validation check.
type Verdict string

// Verdicts.
const (
	Pass Verdict = "pass"
	Fail Verdict = "fail"
	// Disputed: a published figure that the closed form, the model or
	// herd's own measurement contradicts, where validation.md records the
	// dispute (an independent re-run); Row.Note says why.
	Disputed Verdict = "disputed"
)

// Row is one check of herd validate.
type Row struct {
	Check  string // what is checked
	Source string // where the published figure comes from
	// Published is the published figure as written ("10.08 ± 0.08",
	// "over 1,400", "3.9–5.5"); empty when the check has none.
	Published string
	// Reference is the closed form or mean-field model value; NaN if the
	// check has none.
	Reference float64
	// Simulated and SimulatedSE are herd's simulator estimate and its
	// standard error across independent runs; NaN if not simulated.
	Simulated, SimulatedSE float64
	// Z is (Simulated − Reference)/SimulatedSE where both exist, else the
	// distance from Simulated to the published interval in standard
	// errors (0 inside it, negative below); NaN if undefined.
	Z       float64
	Verdict Verdict
	Note    string // how the verdict was reached, and disputes
	Runs    string // the run lengths used ("8 runs × 100,000")
}

// Options controls Validate.
type Options struct {
	Quick   bool   // CI-sized run lengths and the fast checks only
	Seed    uint64 // master seed of the simulations; 0 means 1
	Workers int    // runs in parallel; 0 means 1
	// Progress, if set, is called after each check with the count done.
	Progress func(done, total int)
}

// zBand is how many standard errors a simulated value may lie from an
// exact or model value: 4 (a false alarm about once in 16,000 checks).
const zBand = 4

// check is one entry of the validation list.
type check struct {
	name, source string
	quick        bool // part of --quick
	run          func(ctx context.Context, v *validator) (Row, error)
}

type validator struct {
	opt Options
}

// simulate runs c runs times (seeds derived from the master seed and c's
// identity) and describes the run length.
func (v *validator) simulate(ctx context.Context, c sim.Config, runs int) (sim.Summary, string, error) {
	s, err := sim.Replicate(ctx, c, runs, v.opt.Seed, v.opt.Workers)
	if err != nil {
		return s, "", err
	}
	c = s.Config
	length := fmt.Sprintf("%d runs × %s (warm-up %s)", runs, num(c.Horizon), num(c.Warmup))
	return s, length, nil
}

func num(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// Validate runs every check herd can compute (closed forms, models,
// simulator) against the published figures of validation.md and returns
// one row per check, in a fixed order. A cancelled ctx returns the rows
// finished so far with ctx's error.
func Validate(ctx context.Context, opt Options) ([]Row, error) {
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	if opt.Workers < 1 {
		opt.Workers = 1
	}
	v := &validator{opt: opt}
	var list []check
	for _, c := range checks() {
		if c.quick || !opt.Quick {
			list = append(list, c)
		}
	}
	rows := make([]Row, 0, len(list))
	for i, c := range list {
		if err := ctx.Err(); err != nil {
			return rows, err
		}
		r, err := c.run(ctx, v)
		if err != nil {
			if ctx.Err() != nil {
				return rows, ctx.Err()
			}
			r = Row{Verdict: Fail, Note: "error: " + err.Error(), Reference: math.NaN(),
				Simulated: math.NaN(), SimulatedSE: math.NaN(), Z: math.NaN()}
		}
		r.Check, r.Source = c.name, c.source
		rows = append(rows, r)
		if opt.Progress != nil {
			opt.Progress(i+1, len(list))
		}
	}
	return rows, nil
}

// Failed counts the rows whose verdict is Fail.
func Failed(rows []Row) int {
	n := 0
	for _, r := range rows {
		if r.Verdict == Fail {
			n++
		}
	}
	return n
}

// blank returns a row with every number missing.
func blank() Row {
	return Row{Reference: math.NaN(), Simulated: math.NaN(), SimulatedSE: math.NaN(), Z: math.NaN()}
}

// exact compares a closed form or model value with a published figure
// quoted to the digits given: they agree when the value rounds to it,
// i.e. lies within half a unit of the last published digit.
func exact(published string, pub, halfUnit, ref float64) Row {
	r := blank()
	r.Published, r.Reference = published, ref
	if math.Abs(ref-pub) <= halfUnit*(1+1e-9) {
		r.Verdict = Pass
		r.Note = fmt.Sprintf("rounds to the published %s", published)
	} else {
		r.Verdict = Fail
		r.Note = fmt.Sprintf("%.6g does not round to the published %s", ref, published)
	}
	return r
}

// againstReference compares a simulated estimate with an exact or model
// value: pass when within zBand standard errors (plus an allowance for
// finite-N bias, stated in note when non-zero).
func againstReference(r Row, s sim.Stat, ref, bias float64, note string) Row {
	r.Reference, r.Simulated, r.SimulatedSE = ref, s.Mean, s.SE
	r.Z = (s.Mean - ref) / s.SE
	if math.Abs(s.Mean-ref) <= zBand*s.SE+bias {
		r.Verdict = Pass
	} else {
		r.Verdict = Fail
	}
	r.Note = fmt.Sprintf("simulated vs reference: z = %.2f (band %d s.e.", r.Z, zBand)
	if bias > 0 {
		r.Note += fmt.Sprintf(" + finite-N bias %.3g", bias)
	}
	r.Note += ")"
	if note != "" {
		r.Note += "; " + note
	}
	return r
}

// againstPublished compares a simulated estimate with a published figure
// [lo, hi] (a single value quoted to some digits has lo and hi half a unit
// of its last digit apart; an "≈" figure is read as ±5%): pass when the
// estimate lies within zBand standard errors of the interval.
func againstPublished(published string, lo, hi float64, s sim.Stat) Row {
	r := blank()
	r.Published, r.Simulated, r.SimulatedSE = published, s.Mean, s.SE
	d := 0.0
	switch {
	case s.Mean < lo:
		d = lo - s.Mean
		r.Z = -d / s.SE
	case s.Mean > hi:
		d = s.Mean - hi
		r.Z = d / s.SE
	default:
		r.Z = 0
	}
	if d <= zBand*s.SE {
		r.Verdict = Pass
		r.Note = fmt.Sprintf("within %d s.e. of the published [%.4g, %.4g]", zBand, lo, hi)
	} else {
		r.Verdict = Fail
		r.Note = fmt.Sprintf("%.1f s.e. outside the published [%.4g, %.4g]", d/s.SE, lo, hi)
	}
	return r
}
