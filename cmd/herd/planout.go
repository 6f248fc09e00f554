package main

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"herd/cmd/internal/plotting"
	"herd/cmd/internal/table"
	"herd/compare"
	"herd/fleet"
	"herd/meanfield"
	"herd/sim"
)

// This file writes herd plan's answer: one row per option (the fleet from
// a quiet start and after a surge, then the changes ranked by their mean
// response time), the verdict in the title, and notes that say where each
// number comes from.

// planColumns are herd plan's columns.
var planColumns = []table.Column{
	{Name: "option"}, {Name: "change"}, {Name: "start"},
	{Name: "refresh_ms", Digits: 4}, {Name: "dispatchers"},
	{Name: "model_state"}, {Name: "model_response_ms", Digits: 4},
	{Name: "sim_response_ms", Digits: 4}, {Name: "sim_response_ci_ms", Digits: 2},
	{Name: "sim_p99_ms", Digits: 4}, {Name: "sim_p99_ci_ms", Digits: 2},
	{Name: "sim_tipped"}, {Name: "source"},
}

// startName is a start as the table writes it.
func startName(s compare.PlanStart) string {
	if s == compare.PlanLoaded {
		return "surge"
	}
	return "quiet"
}

// planTable is herd plan's table.
func planTable(in planInput, r compare.PlanResult) *table.Table {
	v := compare.NewPlanVerdict(in.fleet, r)
	t := &table.Table{Title: "herd plan: " + planTitle(v), Columns: planColumns, Partial: r.Stopped}
	t.Meta = planMeta(in, r, v)
	ms := in.service.Seconds() * 1000
	for _, o := range compare.RankPlanOptions(r.Options) {
		t.AddRow(planRow(in, o, ms)...)
	}
	t.Notes = planNotes(in, r)
	t.Warnings = planWarnings(in, r)
	return t
}

// planRow is one option's cells; times in ms (ms is a service time's).
func planRow(in planInput, o compare.PlanOption, ms float64) []any {
	f := o.Fix.Fleet
	row := []any{o.Fix.Name, changeText(in, o.Fix), startName(o.Start), f.Refresh * ms, f.Dispatchers, nil, nil, nil, nil, nil, nil, nil, "simulator only"}
	if o.ModelAnswers() {
		row[5], row[6] = nilIfEmpty(o.Model.State), o.ModelResponse()*ms
		row[12] = "model (" + o.Model.Model + ") + simulator"
	}
	if o.SimDone {
		t := compare.T975(o.Sim.Runs)
		row[7], row[8] = o.Sim.Response.Mean*ms, t*o.Sim.Response.SE*ms
		// The runs' spread, plus the histogram's binning (sim.TailBinError),
		// which the spread cannot show when every run lands in one bin.
		p99 := o.Sim.ResponseP99
		row[9], row[10] = p99.Mean*ms, (t*p99.SE+sim.TailBinError*p99.Mean)*ms
		if f.DetectorSees() {
			row[11] = o.Sim.Tipped
		}
	}
	return row
}

// mv writes a meta value as herd's tables do: numbers in their
// shortest round-trip form.
func mv(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// changeText is a change's flag in the operator's units: a refresh
// period as a duration.
func changeText(in planInput, fx compare.PlanFix) string {
	if fx.Change == "--refresh" {
		return "--refresh " + fmtDuration(in.seconds(fx.Fleet.Refresh))
	}
	return fx.Change
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// planTitle is the verdict's sentence, for the title.
func planTitle(v compare.PlanVerdict) string {
	if v.State == compare.PlanUnknown {
		return "no verdict: the simulator's runs did not finish"
	}
	t := planStateSentence(v.State) + " (" + v.Source + ")"
	if v.Inconclusive {
		t += "; NOT CONCLUSIVE at so short a refresh period: compare the response times"
	}
	return t
}

// planStateSentence says what a state means for the fleet.
func planStateSentence(state string) string {
	switch state {
	case compare.PlanBalanced:
		return "BALANCED: the fleet settles in the balanced state, from a quiet start and after a surge"
	case compare.PlanBistable:
		return "BISTABLE: balanced from a quiet start, but a fleet-wide surge (a deploy, a restart, a burst) traps it in the herd and nothing brings it back"
	case compare.PlanHerd:
		return "HERD: even a quiet fleet tips into the herd, the dispatchers piling onto the same backends"
	}
	return state
}

// planMeta is how the answer was made, for machines.
func planMeta(in planInput, r compare.PlanResult, v compare.PlanVerdict) []table.Field {
	f := in.fleet
	m := []table.Field{
		{Key: "version", Value: mv(version)},
		{Key: "servers", Value: mv(f.Servers)}, {Key: "dispatchers", Value: mv(f.Dispatchers)},
		{Key: "refresh", Value: mv(in.refresh.String())}, {Key: "service", Value: mv(in.service.String())},
		{Key: "load", Value: mv(f.Load)}, {Key: "refresh_T", Value: mv(f.Refresh)}, {Key: "scaled", Value: mv(f.Scaled())},
		{Key: "sizes", Value: mv(f.Sizes.String())}, {Key: "policy", Value: mv(f.Policy.String())},
		{Key: "tally", Value: mv(f.Tally.String())}, {Key: "partitioned", Value: mv(f.Partitioned)},
		{Key: "verdict", Value: mv(v.State)}, {Key: "verdict_source", Value: mv(v.Source)},
	}
	if in.rate > 0 {
		m = append(m, table.Field{Key: "rate_per_s", Value: mv(in.rate)})
	}
	ms := in.service.Seconds() * 1000
	if r.Edge.Found {
		m = append(m, table.Field{Key: "edge_ms", Value: mv(r.Edge.Refresh * ms)}, table.Field{Key: "edge_scaled", Value: mv(r.Edge.Scaled)},
			table.Field{Key: "edge_method", Value: mv(r.Edge.Method)}, table.Field{Key: "margin", Value: mv(f.Refresh / r.Edge.Refresh)})
	}
	if b := r.Bracket; b != nil && r.BracketErr == nil {
		d := (1 - f.Load) * (1 - f.Load)
		m = append(m, table.Field{Key: "edge_n_lower_ms", Value: mv(b.Lower / d * ms)}, table.Field{Key: "edge_n_upper_ms", Value: mv(b.Upper / d * ms)})
		if h := b.Half; !math.IsNaN(h.Scaled) {
			m = append(m, table.Field{Key: "edge_n_half_ms", Value: mv(h.Scaled / d * ms)})
		}
	}
	return append(m, table.Field{Key: "runs", Value: mv(in.runs)}, table.Field{Key: "refreshes", Value: mv(in.refreshes)}, table.Field{Key: "seed", Value: mv(in.seed)})
}

// planNotes are the notes under the table: the fleet in herd's units,
// the edge and margin, the bracket at N, the best change, and where each
// column comes from.
func planNotes(in planInput, r compare.PlanResult) []string {
	f := in.fleet
	ms := in.service.Seconds() * 1000
	notes := []string{fmt.Sprintf("the fleet in service times: T = refresh/service = %s/%s = %.4g, load λ = %.4g, x = T(1−λ)² = %.4g, sizes %s, policy %s, tally %s%s",
		in.refresh, in.service, f.Refresh, f.Load, f.Scaled(), f.Sizes, f.Policy, f.Tally, map[bool]string{true: ", partitioned"}[f.Partitioned])}
	if fit := in.sizes.fit; fit != nil {
		notes = append(notes, fmt.Sprintf("sizes fitted to %d service times: mean %s, squared coefficient of variation C = %.4g → %s (the mean exactly, C %s); quantiles 50/99/99.9%%: samples %s, fit %s",
			fit.N, fmtDuration(fit.Mean), fit.SCV, fit.Sizes, fitHow(fit.Sizes),
			fmtQuantiles(fit.Sample[:]), fmtQuantiles(fit.Fitted[:])))
	}
	notes = append(notes, planEdgeNotes(in, r, ms)...)
	if best, ok := compare.BestPlanChange(r.Options); ok {
		notes = append(notes, fmt.Sprintf("best change by mean response: %s (%s), %s (%s) against %s now (%s): %s", best.Fix.Name, changeText(in, best.Fix),
			fmtDuration(best.Predicted()*ms/1000), predictedBy(best), fmtDuration(r.Options[0].Predicted()*ms/1000), predictedBy(r.Options[0]), best.Fix.Note))
	}
	notes = append(notes, fmt.Sprintf("columns: model_* is the mean-field model (N → ∞; a long-run average where its orbit does not settle); sim_* is herd's simulator at N = %d: %d runs of %d refresh periods (at least %g service times; the first quarter discarded), mean and 95%% Student-t half-width (%d d.f.); sim_tipped counts runs that tipped into the herd (board mean above max(3/(1−λ), 0.1·T) for 5 refreshes); p99 is each run's 99th percentile (binned within 0.4%%), averaged over runs, its half-width plus the 0.4%% binning",
		f.Servers, in.runs, in.refreshes, float64(compare.PlanSimMinHorizon), in.runs-1))
	notes = append(notes, "start quiet: an empty fleet; surge: half the backends start with 0.1·T service times of work queued, as after a deploy or a burst (the herd's basin)")
	return notes
}

// planEdgeNotes say where the edge is, in the operator's units.
func planEdgeNotes(in planInput, r compare.PlanResult, ms float64) []string {
	f := in.fleet
	e := r.Edge
	if !e.Found {
		if e.Failure != nil {
			return []string{"edge: not computed: " + e.Failure.Error()}
		}
		return []string{"edge: none for this fleet's model (the refresh map tips only with least loaded, own tallies and k ≥ 2 unpartitioned dispatchers)"}
	}
	how := "the refresh map's exact search, as herd edge"
	if e.Method == "limit" {
		how = fmt.Sprintf("the heavy-traffic limit map, an APPROXIMATION (x* ± %.2g is the limit's precision as λ → 1, not its distance from the edge at λ = %g: exact edges at λ = 0.85–0.9 lie up to 10%% from it for h2 sizes, up to twice it for Erlang sizes), since the exact search would exceed %v", e.Err, f.Load, planExactBudget)
	}
	notes := []string{fmt.Sprintf("edge (model, N → ∞, %s): refresh %s (T = %.5g, x = %.5g); the fleet's margin T/T_edge = %.3g: %s",
		how, fmtDuration(e.Refresh*ms/1000), e.Refresh, e.Scaled, f.Refresh/e.Refresh, planMarginWords(f.Refresh/e.Refresh))}
	switch {
	case r.Bracket != nil && r.BracketErr == nil:
		b := r.Bracket
		d := (1 - f.Load) * (1 - f.Load)
		note := fmt.Sprintf("edge at N = %d (simulator bracket, %d runs of %d refreshes per point, resolution %g in x): refresh between %s and %s (x in [%.4g, %.4g])",
			f.Servers, b.Settings.Runs, b.Settings.Refreshes, b.Settings.Resolution, fmtDuration(b.Lower/d*ms/1000), fmtDuration(b.Upper/d*ms/1000), b.Lower, b.Upper)
		if h := b.Half; !math.IsNaN(h.Scaled) {
			ci := "its 95% interval not bounded by the points"
			if h.Bounded() {
				ci = fmt.Sprintf("95%%: %s to %s", fmtDuration(h.Lower/d*ms/1000), fmtDuration(h.Upper/d*ms/1000))
			}
			note += fmt.Sprintf("; half the runs tip within %d refreshes at refresh %s (%s; x = %.4g, a logistic fit to all %d points)",
				b.Settings.Refreshes, fmtDuration(h.Scaled/d*ms/1000), ci, h.Scaled, len(b.Points))
		}
		notes = append(notes, note)
	case r.BracketErr != nil:
		notes = append(notes, "edge at N: not bracketed: "+r.BracketErr.Error())
	}
	return notes
}

// planMarginWords reads a margin T/T_edge.
func planMarginWords(m float64) string {
	if m < 1 {
		return fmt.Sprintf("the refresh period is %s of the edge's; below the edge the balanced state does not exist unless the period is short enough that no herd forms", percent(m))
	}
	return fmt.Sprintf("%s above the edge: the balanced state exists, and so does the herd (the trap door)", percent(m-1))
}

// percent writes a fraction as a percentage in whole percents, with more
// digits where whole percents would round a margin away: 0.04%, not 0%,
// and 99.96%, not 100%, for a period just below the edge's.
func percent(f float64) string {
	switch p := 100 * f; {
	case math.Abs(p) < 0.995:
		return strconv.FormatFloat(p, 'g', 2, 64) + "%"
	case p > 99.5 && p < 100:
		return strconv.FormatFloat(p, 'g', 4, 64) + "%"
	}
	return fmt.Sprintf("%.0f%%", 100*f)
}

// predictedBy says where an option's predicted mean comes from.
func predictedBy(o compare.PlanOption) string {
	if o.ModelAnswers() {
		return "model"
	}
	return "simulator"
}

// fitHow says how closely a fitted law matches the samples' C.
func fitHow(z fleet.Sizes) string {
	switch z.Kind {
	case fleet.H2:
		return "to 3 digits"
	case fleet.Erlang:
		return "as the nearest 1/K"
	}
	return fmt.Sprintf("within %g of 1", compare.FitExpBand)
}

func fmtQuantiles(q []float64) string {
	s := make([]string, len(q))
	for i, x := range q {
		s[i] = fmtDuration(x)
	}
	return strings.Join(s, "/")
}

// planWarnings are what the reader must not miss: a sizes file whose tail
// the fit understates, the simulator disagreeing with the model at N,
// model answers that failed, and the changes the model cannot answer.
func planWarnings(in planInput, r compare.PlanResult) []string {
	var w []string
	if fit := in.sizes.fit; fit != nil {
		if s := fit.TailWarning(); s != "" {
			w = append(w, s)
		}
	}
	for _, o := range r.Options {
		if o.ModelErr != nil {
			w = append(w, fmt.Sprintf("%s (%s): the model failed: %v", o.Fix.Name, startName(o.Start), o.ModelErr))
		}
	}
	if q := r.Options[0]; q.SimDone && r.Model.Covered && r.Model.State != compare.PlanHerd && !compare.PlanInconclusive(in.fleet, r) && 2*q.Sim.Tipped > q.Sim.Runs {
		w = append(w, fmt.Sprintf("the simulator's quiet runs at N = %d tipped (%d of %d) where the model (N → ∞) is balanced: a finite fleet's edge lies above the model's", in.fleet.Servers, q.Sim.Tipped, q.Sim.Runs))
	}
	if compare.PlanInconclusive(in.fleet, r) {
		svc, _ := compare.ModelService(in.fleet.Sizes)
		w = append(w, fmt.Sprintf("the verdict %s is not conclusive: at x = T(1−λ)² = %.3g, below %.3g = 4·max(1, C)·(1−λ), a short herd's backlog (at least 0.3·T) is no larger than a balanced queue can be, so the model's label cannot tell them apart; the response times can (compare the changes')",
			r.Model.State, in.fleet.Scaled(), meanfield.SeparableScaled(in.fleet.Load, svc)))
	}
	if !r.Model.Covered && r.ModelErr == nil {
		w = append(w, "no model for the fleet as it is ("+r.Model.Why+"): its rows are the simulator's alone")
	}
	return w
}

// plotPlan draws the model's mean response against the refresh period
// from both starts, with the fleet's refresh marked.
func plotPlan(ctx context.Context, in planInput, r compare.PlanResult) error {
	if !r.Model.Covered || r.Model.State == "" {
		return usagef("--plot: the fleet's model (%s) has no refresh-period curve to draw", cmp.Or(r.Model.Model, "none"))
	}
	ms := in.service.Seconds() * 1000
	ts, models, err := compare.PlanCurve(in.fleet, r.Edge, 24, stopOn(ctx))
	if err != nil {
		return err
	}
	quiet := plotting.Series{Name: "quiet start (model, N → ∞)", Line: true}
	surge := plotting.Series{Name: "after a surge (model, N → ∞)", Line: true}
	for i, T := range ts {
		quiet.X, quiet.Y = append(quiet.X, T*ms), append(quiet.Y, models[i].Quiet*ms)
		surge.X, surge.Y = append(surge.X, T*ms), append(surge.Y, models[i].Loaded*ms)
	}
	fig := plotting.Figure{Title: "herd plan: mean response against the refresh period", XLabel: "refresh period (ms)", YLabel: "mean response time (ms)",
		LogX: true, LogY: true, Series: []plotting.Series{quiet, surge}}
	if o := r.Options[0]; o.SimDone {
		t := compare.T975(o.Sim.Runs)
		fig.Series = append(fig.Series, plotting.Series{Name: fmt.Sprintf("this fleet (simulator, N = %d)", in.fleet.Servers),
			X: []float64{in.fleet.Refresh * ms}, Y: []float64{o.Sim.Response.Mean * ms}, YErr: []float64{t * o.Sim.Response.SE * ms}})
	}
	return plotting.Save(fig, in.plot)
}
