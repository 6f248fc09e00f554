package compare

import (
	"math"
	"strings"
	"testing"

	"herd/sim"
)

// planSimOption is an option whose runs finished, tipped of runs tipped,
// with a mean response.
func planSimOption(name string, tipped, runs int, response float64) PlanOption {
	return PlanOption{Fix: PlanFix{Name: name}, SimDone: true,
		Sim: SimRow{Summary: sim.Summary{Runs: runs, Response: sim.Stat{Mean: response, N: runs}}, Tipped: tipped}}
}

// The verdict is the model's where it has a state, flagged inconclusive
// below x = SeparableScaled (4·(1−λ) = 0.4 at λ = 0.9, exp sizes); else
// the simulator's by majority of tipped runs, quiet before surge; else
// unknown.
func TestNewPlanVerdict(t *testing.T) {
	t.Parallel()
	fleet := func(T float64) PlanFleet { return PlanFleet{Servers: 50, Dispatchers: 5, Load: 0.9, Refresh: T} }
	model := func(state string) PlanResult { return PlanResult{Model: PlanModel{Covered: true, State: state}} }
	simOnly := func(quiet, surge PlanOption) PlanResult {
		return PlanResult{Model: PlanModel{Why: "no model"}, Options: []PlanOption{quiet, surge}}
	}
	for _, c := range []struct {
		name string
		f    PlanFleet
		r    PlanResult
		want PlanVerdict
	}{
		{"model, x = 1", fleet(100), model(PlanBalanced), PlanVerdict{PlanBalanced, "model, N → ∞", false}},
		{"model, x = 0.1", fleet(10), model(PlanBistable), PlanVerdict{PlanBistable, "model, N → ∞", true}},
		{"model herd, x = 0.1", fleet(10), model(PlanHerd), PlanVerdict{PlanHerd, "model, N → ∞", false}},
		{"quiet runs tipped", fleet(100), simOnly(planSimOption("now", 3, 4, 1), planSimOption("now", 4, 4, 1)), PlanVerdict{PlanHerd, "simulator at N = 50", false}},
		{"surge runs tipped", fleet(100), simOnly(planSimOption("now", 2, 4, 1), planSimOption("now", 3, 4, 1)), PlanVerdict{PlanBistable, "simulator at N = 50", false}},
		{"none tipped", fleet(100), simOnly(planSimOption("now", 0, 4, 1), planSimOption("now", 2, 4, 1)), PlanVerdict{PlanBalanced, "simulator at N = 50", false}},
		{"runs unfinished", fleet(100), simOnly(planSimOption("now", 0, 4, 1), PlanOption{}), PlanVerdict{PlanUnknown, "none", false}},
	} {
		if got := NewPlanVerdict(c.f, c.r); got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}

// The fleet's own two rows stay first; the changes follow by predicted
// mean response (the model's from their start, else the simulator's),
// those with no answer last, ties in order.
func TestRankPlanOptions(t *testing.T) {
	t.Parallel()
	modelled := PlanOption{Fix: PlanFix{Name: "m"}, Start: PlanLoaded, Model: PlanModel{Covered: true, Quiet: 1, Loaded: 2.5}}
	opts := []PlanOption{
		planSimOption("now", 0, 4, 9), planSimOption("now", 0, 4, 9),
		planSimOption("a", 0, 4, 3), {Fix: PlanFix{Name: "none"}}, modelled, planSimOption("b", 0, 4, 3),
	}
	var got []string
	for _, o := range RankPlanOptions(opts) {
		got = append(got, o.Fix.Name)
	}
	if want := "now now m a b none"; strings.Join(got, " ") != want {
		t.Errorf("ranked %q, want %q", strings.Join(got, " "), want)
	}
	if best, ok := BestPlanChange(opts); !ok || best.Fix.Name != "m" || best.Predicted() != 2.5 {
		t.Errorf("best %q (%v), %t; want m at 2.5 (its loaded start)", best.Fix.Name, best.Predicted(), ok)
	}
	if _, ok := BestPlanChange([]PlanOption{opts[0], opts[1], opts[3]}); ok {
		t.Errorf("best of a change with no answer: found one")
	}
	if !math.IsInf(opts[3].Predicted(), 1) {
		t.Errorf("an option with no answer predicts %v, want +Inf", opts[3].Predicted())
	}
}
