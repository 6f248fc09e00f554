package main

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"herd/cmd/internal/plotting"
	"herd/cmd/internal/table"
	"herd/compare"
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
	v := planVerdict(in, r)
	t := &table.Table{Title: "herd plan: " + v.title, Columns: planColumns, Partial: r.Stopped}
	t.Meta = planMeta(in, r, v)
	ms := in.service.Seconds() * 1000
	for _, o := range planRanked(r.Options) {
		t.AddRow(planRow(in, o, ms)...)
	}
	t.Notes = planNotes(in, r, v)
	t.Warnings = planWarnings(in, r)
	return t
}

// planRanked is the options in the table's order: the fleet's own rows,
// then the changes by their predicted mean response (the model's where it
// has one, else the simulator's), unanswered ones last.
func planRanked(opts []compare.PlanOption) []compare.PlanOption {
	own, fixes := opts[:2], slices.Clone(opts[2:])
	slices.SortStableFunc(fixes, func(a, b compare.PlanOption) int { return cmp.Compare(planPredicted(a), planPredicted(b)) })
	return append(slices.Clone(own), fixes...)
}

// planPredicted is an option's mean response for ranking: the model's
// from its start, else the simulator's, else +Inf.
func planPredicted(o compare.PlanOption) float64 {
	if o.ModelErr == nil && o.Model.Covered {
		return planModelResponse(o)
	}
	if o.SimDone && o.Sim.Response.N > 0 {
		return o.Sim.Response.Mean
	}
	return math.Inf(1)
}

// planModelResponse is the model's mean response from o's start.
func planModelResponse(o compare.PlanOption) float64 {
	if o.Start == compare.PlanLoaded {
		return o.Model.Loaded
	}
	return o.Model.Quiet
}

// planRow is one option's cells; times in ms (ms is a service time's).
func planRow(in planInput, o compare.PlanOption, ms float64) []any {
	f := o.Fix.Fleet
	row := []any{o.Fix.Name, changeText(in, o.Fix), startName(o.Start), f.Refresh * ms, f.Dispatchers, nil, nil, nil, nil, nil, nil, nil, "simulator only"}
	if o.ModelErr == nil && o.Model.Covered {
		row[5], row[6] = nilIfEmpty(o.Model.State), planModelResponse(o)*ms
		row[12] = "model (" + o.Model.Model + ") + simulator"
	}
	if o.SimDone {
		t := compare.T975(o.Sim.Runs)
		row[7], row[8] = o.Sim.Response.Mean*ms, t*o.Sim.Response.SE*ms
		// The runs' spread, plus the histogram's binning (sim.TailBinError),
		// which the spread cannot show when every run lands in one bin.
		p99 := o.Sim.ResponseP99
		row[9], row[10] = p99.Mean*ms, (t*p99.SE+sim.TailBinError*p99.Mean)*ms
		if planDetectorSees(f) {
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

// planDetectorSees reports whether the tipping detector's threshold,
// max(3/(1−λ), 0.1·T), lies above what a balanced fleet's board can reach,
// BalancedQueueScale·max(1, C)/(1−λ); below it (long-tailed sizes at short
// refresh periods) a balanced fleet reads as tipped, and sim_tipped is
// left empty.
func planDetectorSees(f compare.PlanFleet) bool {
	c := 1.0 // max(1, C): exp and Erlang have C ≤ 1
	if f.Sizes.Kind == sim.H2 {
		c = f.Sizes.Param
	}
	return compare.TipThreshold(f.Load, f.Refresh) > meanfield.BalancedQueueScale*c/(1-f.Load)
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

// planVerdictText is the verdict: a word and the title's sentence.
type planVerdictText struct {
	state, source, title string
}

// planVerdict is the fleet's verdict: the model's (N → ∞) where it tells
// states apart, else the simulator's at N from its tipping detector.
func planVerdict(in planInput, r compare.PlanResult) planVerdictText {
	if r.ModelErr == nil && r.Model.State != "" {
		v := planVerdictText{state: r.Model.State, source: "model, N → ∞", title: planStateSentence(r.Model.State) + " (model, N → ∞)"}
		if planInconclusive(in, r) {
			v.title += "; NOT CONCLUSIVE at so short a refresh period: compare the response times"
		}
		return v
	}
	quiet, surge := r.Options[0], r.Options[1]
	if !quiet.SimDone || !surge.SimDone {
		return planVerdictText{state: "unknown", source: "none", title: "no verdict: the simulator's runs did not finish"}
	}
	state := compare.PlanBalanced
	switch {
	case 2*quiet.Sim.Tipped > quiet.Sim.Runs:
		state = compare.PlanHerd
	case 2*surge.Sim.Tipped > surge.Sim.Runs:
		state = compare.PlanBistable
	}
	src := fmt.Sprintf("simulator at N = %d", in.fleet.Servers)
	return planVerdictText{state: state, source: src, title: planStateSentence(state) + " (" + src + ")"}
}

// planInconclusive reports a balanced verdict where the model cannot
// tell a balanced state from a short herd by its board mean: below
// x = meanfield.SeparableScaled (4·max(1, C)·(1−λ)), as herd point notes.
func planInconclusive(in planInput, r compare.PlanResult) bool {
	if !r.Model.Covered || r.Model.State == "" || r.Model.State == compare.PlanHerd {
		return false
	}
	svc, err := compare.ModelService(in.fleet.Sizes)
	return err == nil && in.fleet.Scaled() < meanfield.SeparableScaled(in.fleet.Load, svc)
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
func planMeta(in planInput, r compare.PlanResult, v planVerdictText) []table.Field {
	f := in.fleet
	m := []table.Field{
		{Key: "version", Value: mv(version)},
		{Key: "servers", Value: mv(f.Servers)}, {Key: "dispatchers", Value: mv(f.Dispatchers)},
		{Key: "refresh", Value: mv(in.refresh.String())}, {Key: "service", Value: mv(in.service.String())},
		{Key: "load", Value: mv(f.Load)}, {Key: "refresh_T", Value: mv(f.Refresh)}, {Key: "scaled", Value: mv(f.Scaled())},
		{Key: "sizes", Value: mv(f.Sizes.String())}, {Key: "policy", Value: mv(f.Policy.String())},
		{Key: "tally", Value: mv(f.Tally.String())}, {Key: "partitioned", Value: mv(f.Partitioned)},
		{Key: "verdict", Value: mv(v.state)}, {Key: "verdict_source", Value: mv(v.source)},
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
	}
	return append(m, table.Field{Key: "runs", Value: mv(in.runs)}, table.Field{Key: "refreshes", Value: mv(in.refreshes)}, table.Field{Key: "seed", Value: mv(in.seed)})
}

// planNotes are the notes under the table: the fleet in herd's units,
// the edge and margin, the bracket at N, the best change, and where each
// column comes from.
func planNotes(in planInput, r compare.PlanResult, v planVerdictText) []string {
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
	if best, ok := planBest(r.Options); ok {
		notes = append(notes, fmt.Sprintf("best change by mean response: %s (%s), %s (%s) against %s now (%s): %s", best.Fix.Name, changeText(in, best.Fix),
			fmtDuration(planPredicted(best)*ms/1000), planSourceWord(best), fmtDuration(planPredicted(r.Options[0])*ms/1000), planSourceWord(r.Options[0]), best.Fix.Note))
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
		how = fmt.Sprintf("the heavy-traffic limit map, an APPROXIMATION (x* ± %.2g), since the exact search would exceed %v", e.Err, planExactBudget)
	}
	notes := []string{fmt.Sprintf("edge (model, N → ∞, %s): refresh %s (T = %.5g, x = %.5g); the fleet's margin T/T_edge = %.3g: %s",
		how, fmtDuration(e.Refresh*ms/1000), e.Refresh, e.Scaled, f.Refresh/e.Refresh, planMarginWords(f.Refresh/e.Refresh))}
	switch {
	case r.Bracket != nil && r.BracketErr == nil:
		b := r.Bracket
		d := (1 - f.Load) * (1 - f.Load)
		notes = append(notes, fmt.Sprintf("edge at N = %d (simulator bracket, %d runs of %d refreshes per point, resolution %g in x): refresh between %s and %s (x in [%.4g, %.4g])",
			f.Servers, b.Settings.Runs, b.Settings.Refreshes, b.Settings.Resolution, fmtDuration(b.Lower/d*ms/1000), fmtDuration(b.Upper/d*ms/1000), b.Lower, b.Upper))
	case r.BracketErr != nil:
		notes = append(notes, "edge at N: not bracketed: "+r.BracketErr.Error())
	}
	return notes
}

// planMarginWords reads a margin T/T_edge.
func planMarginWords(m float64) string {
	if m < 1 {
		return fmt.Sprintf("the refresh period is %.0f%% of the edge's; below the edge the balanced state does not exist unless the period is short enough that no herd forms", 100*m)
	}
	return fmt.Sprintf("%.0f%% above the edge: the balanced state exists, and so does the herd (the trap door)", 100*(m-1))
}

// planSourceWord says where an option's predicted mean comes from.
func planSourceWord(o compare.PlanOption) string {
	if o.ModelErr == nil && o.Model.Covered {
		return "model"
	}
	return "simulator"
}

// planBest is the change with the lowest predicted mean response.
func planBest(opts []compare.PlanOption) (compare.PlanOption, bool) {
	ranked := planRanked(opts)
	if len(ranked) < 3 || math.IsInf(planPredicted(ranked[2]), 1) {
		return compare.PlanOption{}, false
	}
	return ranked[2], true
}

// fitHow says how closely a fitted law matches the samples' C.
func fitHow(z sim.Sizes) string {
	switch z.Kind {
	case sim.H2:
		return "to 3 digits"
	case sim.Erlang:
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
	if q := r.Options[0]; q.SimDone && r.Model.Covered && r.Model.State != compare.PlanHerd && !planInconclusive(in, r) && 2*q.Sim.Tipped > q.Sim.Runs {
		w = append(w, fmt.Sprintf("the simulator's quiet runs at N = %d tipped (%d of %d) where the model (N → ∞) is balanced: a finite fleet's edge lies above the model's", in.fleet.Servers, q.Sim.Tipped, q.Sim.Runs))
	}
	if planInconclusive(in, r) {
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
	hi := in.fleet.Refresh * 4
	if r.Edge.Found {
		hi = math.Max(hi, 2*r.Edge.Refresh)
	}
	hi = math.Min(hi, modelMaxRefresh)
	lo := math.Max(in.fleet.Refresh/30, compare.PlanMinRefresh)
	quiet := plotting.Series{Name: "quiet start (model, N → ∞)", Line: true}
	surge := plotting.Series{Name: "after a surge (model, N → ∞)", Line: true}
	const points = 24
	for i := range points {
		f := in.fleet
		f.Refresh = lo * math.Pow(hi/lo, float64(i)/(points-1))
		m, err := compare.PlanModelAt(f, stopOn(ctx))
		if err != nil {
			return err
		}
		quiet.X, quiet.Y = append(quiet.X, f.Refresh*ms), append(quiet.Y, m.Quiet*ms)
		surge.X, surge.Y = append(surge.X, f.Refresh*ms), append(surge.Y, m.Loaded*ms)
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
