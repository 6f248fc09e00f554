package fleet

import (
	"math"
	"testing"
)

// ParseSizes reads what String writes, and refuses what is not a law or
// a parameter out of its law's range, with the words herd sim prints.
func TestParseSizes(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]Sizes{
		"exp": {Kind: Exp}, "det": {Kind: Det}, "h2:10": {Kind: H2, Param: 10},
		"pareto:2.5": {Kind: Pareto, Param: 2.5}, "erlang:4": {Kind: Erlang, Param: 4},
	} {
		z, err := ParseSizes(s)
		if err != nil || z != want || z.String() != s {
			t.Errorf("ParseSizes(%q) = %+v (%s), %v; want %+v", s, z, z, err, want)
		}
	}
	for s, want := range map[string]string{
		"h2:0.9":     "fleet: sizes h2:0.9: C must be in [1, 1e+09]",
		"pareto:1":   "fleet: sizes pareto:1: A must be > 1 (mean 1 needs a finite mean)",
		"h2":         `fleet: sizes "h2" need a parameter, e.g. h2:10 or pareto:2.5`,
		"h2:x":       `fleet: sizes "h2:x": parameter is not a number`,
		"exp:1":      `fleet: sizes "exp:1" take no parameter`,
		"gamma:2":    `fleet: unknown sizes "gamma:2": want exp, det, h2:C, pareto:A or erlang:K`,
		"erlang:0":   "fleet: sizes erlang:0: K must be an integer in [1, 1000]",
		"erlang:2.5": `fleet: sizes "erlang:2.5" need an integer number of phases, e.g. erlang:4`,
		"erlang":     `fleet: sizes "erlang" need an integer number of phases, e.g. erlang:4`,
	} {
		if _, err := ParseSizes(s); err == nil || err.Error() != want {
			t.Errorf("ParseSizes(%q): error %v, want %q", s, err, want)
		}
	}
	if got := (Sizes{Kind: 9}).String(); got != "sizes(9)" {
		t.Errorf("unknown kind: String() = %q", got)
	}
	if err := (Sizes{Kind: 9}).Validate(); err == nil {
		t.Error("unknown kind: Validate() = nil")
	}
}

// The balanced-means H2 has mean 1 and E[S²] = 1 + C, the value
// SecondMoment gives; the other laws' second moments are their closed forms.
func TestSizesMoments(t *testing.T) {
	t.Parallel()
	for _, c := range []float64{1, 4, 10, 1e6} {
		z := Sizes{Kind: H2, Param: c}
		p, m1, m2 := z.H2Phases()
		mean, second := p*m1+(1-p)*m2, 2*(p*m1*m1+(1-p)*m2*m2)
		if math.Abs(mean-1) > 1e-12 || math.Abs(second/z.SecondMoment()-1) > 1e-9 {
			t.Errorf("h2:%g: mean %v, E[S²] %v, want 1 and %v", c, mean, second, z.SecondMoment())
		}
	}
	for z, want := range map[Sizes]float64{
		{Kind: Exp}: 2, {Kind: Det}: 1, {Kind: Erlang, Param: 4}: 1.25,
		{Kind: Pareto, Param: 2}: math.Inf(1), {Kind: Pareto, Param: 3}: 4.0 / 3,
	} {
		if got := z.SecondMoment(); math.Abs(got-want) > 1e-15*want && got != want {
			t.Errorf("%s: SecondMoment() = %v, want %v", z, got, want)
		}
	}
}
