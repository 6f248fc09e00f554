package compare

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"herd/fleet"
	"herd/meanfield"
)

// This file reads herd plan's answer off its result: the verdict on the
// fleet and where it comes from, and the options ranked by their
// predicted mean response. cmd/herd words them.

// PlanUnknown is PlanVerdict.State when neither the model nor the
// simulator's runs give one.
const PlanUnknown = "unknown"

// PlanVerdict is the fleet's state and where it comes from.
type PlanVerdict struct {
	// State is PlanBalanced, PlanBistable, PlanHerd or PlanUnknown.
	State string
	// Source is "model, N → ∞", "simulator at N = 100", or "none".
	Source string
	// Inconclusive marks a model's verdict that PlanInconclusive doubts.
	Inconclusive bool
}

// NewPlanVerdict is the verdict on fleet f: the model's (N → ∞) where it
// tells states apart, else the simulator's at N from its tipping
// detector (a majority of the quiet runs tipped: PlanHerd; else of the
// surge runs: PlanBistable), else PlanUnknown. r.Options begins with the
// fleet's own quiet and loaded rows, as Plan returns them.
func NewPlanVerdict(f PlanFleet, r PlanResult) PlanVerdict {
	if r.ModelErr == nil && r.Model.State != "" {
		return PlanVerdict{State: r.Model.State, Source: "model, N → ∞", Inconclusive: PlanInconclusive(f, r)}
	}
	quiet, surge := r.Options[0], r.Options[1]
	if !quiet.SimDone || !surge.SimDone {
		return PlanVerdict{State: PlanUnknown, Source: "none"}
	}
	state := PlanBalanced
	switch {
	case 2*quiet.Sim.Tipped > quiet.Sim.Runs:
		state = PlanHerd
	case 2*surge.Sim.Tipped > surge.Sim.Runs:
		state = PlanBistable
	}
	return PlanVerdict{State: state, Source: fmt.Sprintf("simulator at N = %d", f.Servers)}
}

// PlanInconclusive reports a balanced (or bistable) model verdict where
// the model cannot tell a balanced state from a short herd by its board
// mean: below x = meanfield.SeparableScaled (4·max(1, C)·(1−λ)), as herd
// point notes.
func PlanInconclusive(f PlanFleet, r PlanResult) bool {
	if !r.Model.Covered || r.Model.State == "" || r.Model.State == PlanHerd {
		return false
	}
	svc, err := ModelService(f.Sizes)
	return err == nil && f.Scaled() < meanfield.SeparableScaled(f.Load, svc)
}

// DetectorSees reports whether the tipping detector's threshold,
// max(3/(1−λ), 0.1·T), lies above what a balanced fleet's board can reach,
// meanfield.BalancedQueueScale·max(1, C)/(1−λ); below it (long-tailed
// sizes at short refresh periods) a balanced fleet reads as tipped.
func (f PlanFleet) DetectorSees() bool {
	c := 1.0 // max(1, C): exp and Erlang have C ≤ 1
	if f.Sizes.Kind == fleet.H2 {
		c = f.Sizes.Param
	}
	return TipThreshold(f.Load, f.Refresh) > meanfield.BalancedQueueScale*c/(1-f.Load)
}

// ModelResponse is the model's mean response from o's start.
func (o PlanOption) ModelResponse() float64 {
	if o.Start == PlanLoaded {
		return o.Model.Loaded
	}
	return o.Model.Quiet
}

// ModelAnswers reports whether the model answers for o.
func (o PlanOption) ModelAnswers() bool { return o.ModelErr == nil && o.Model.Covered }

// Predicted is o's mean response for ranking: the model's from its start
// (ModelAnswers), else the simulator's, else +Inf.
func (o PlanOption) Predicted() float64 {
	if o.ModelAnswers() {
		return o.ModelResponse()
	}
	if o.SimDone && o.Sim.Response.N > 0 {
		return o.Sim.Response.Mean
	}
	return math.Inf(1)
}

// RankPlanOptions returns the options in the table's order: the fleet's
// own two rows, then the changes by their predicted mean response
// (Predicted), unanswered ones last; ties keep their order.
func RankPlanOptions(opts []PlanOption) []PlanOption {
	own, fixes := opts[:2], slices.Clone(opts[2:])
	slices.SortStableFunc(fixes, func(a, b PlanOption) int { return cmp.Compare(a.Predicted(), b.Predicted()) })
	return append(slices.Clone(own), fixes...)
}

// BestPlanChange is the change with the lowest predicted mean response,
// and false where no change has an answer.
func BestPlanChange(opts []PlanOption) (PlanOption, bool) {
	ranked := RankPlanOptions(opts)
	if len(ranked) < 3 || math.IsInf(ranked[2].Predicted(), 1) {
		return PlanOption{}, false
	}
	return ranked[2], true
}
