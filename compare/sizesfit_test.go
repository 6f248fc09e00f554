package compare

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"herd/fleet"
)

// draw is n samples of the law z (mean 1) from a fixed seed.
func draw(z fleet.Sizes, n int) []float64 {
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, n)
	for i := range xs {
		switch z.Kind {
		case fleet.Exp:
			xs[i] = r.ExpFloat64()
		case fleet.Erlang:
			for range int(z.Param) {
				xs[i] += r.ExpFloat64() / z.Param
			}
		case fleet.H2:
			p, m1, m2 := z.H2Phases()
			if r.Float64() < p {
				xs[i] = m1 * r.ExpFloat64()
			} else {
				xs[i] = m2 * r.ExpFloat64()
			}
		case fleet.Pareto:
			a := z.Param
			xs[i] = (a - 1) / a * math.Pow(1-r.Float64(), -1/a)
		}
	}
	return xs
}

// A file of service times drawn from a known law gives back its law and
// C within 10%, with no tail warning; scaling the times scales the mean
// only.
func TestFitSizesRecoversLaw(t *testing.T) {
	for _, z := range []fleet.Sizes{{Kind: fleet.H2, Param: 4}, {Kind: fleet.H2, Param: 10}, {Kind: fleet.Exp}, {Kind: fleet.Erlang, Param: 4}} {
		xs := draw(z, 50000)
		for i := range xs {
			xs[i] *= 0.05 // 50 ms
		}
		f, err := FitSizes(xs)
		if err != nil {
			t.Fatal(err)
		}
		c := 1.0
		switch z.Kind {
		case fleet.H2:
			c = z.Param
		case fleet.Erlang:
			c = 1 / z.Param
		}
		if f.Sizes.Kind != z.Kind || math.Abs(f.Sizes.Param/z.Param-1) > 0.1 || math.Abs(f.SCV/c-1) > 0.1 {
			t.Errorf("%s: fitted %s with C = %g, want %s with C within 10%% of %g", z, f.Sizes, f.SCV, z, c)
		}
		if math.Abs(f.Mean/0.05-1) > 0.05 {
			t.Errorf("%s: mean %g, want 0.05", z, f.Mean)
		}
		if w := f.TailWarning(); w != "" {
			t.Errorf("%s: samples of the fitted law warn: %s", z, w)
		}
	}
}

// Pareto times (shape 2.2: finite C, a tail heavier than any
// hyperexponential's) are fitted by h2 and warned about.
func TestFitSizesHeavyTailWarns(t *testing.T) {
	f, err := FitSizes(draw(fleet.Sizes{Kind: fleet.Pareto, Param: 2.2}, 200000))
	if err != nil {
		t.Fatal(err)
	}
	if f.Sizes.Kind != fleet.H2 || f.TailWarning() == "" {
		t.Errorf("Pareto 2.2: fitted %s (C = %g), tail warning %q; want h2 and a warning (quantiles %v vs %v)", f.Sizes, f.SCV, f.TailWarning(), f.Sample, f.Fitted)
	}
}

func TestFitSizesRefuses(t *testing.T) {
	if _, err := FitSizes(make([]float64, 10)); err == nil {
		t.Error("10 samples: no error")
	}
	xs := draw(fleet.Sizes{Kind: fleet.Exp}, 200)
	xs[7] = -1
	if _, err := FitSizes(xs); err == nil {
		t.Error("a negative time: no error")
	}
}

// SizesQuantile inverts each law's distribution function.
func TestSizesQuantile(t *testing.T) {
	for _, q := range []float64{0.5, 0.99, 0.999} {
		if got, want := SizesQuantile(fleet.Sizes{Kind: fleet.Exp}, q), -math.Log(1-q); math.Abs(got-want) > 1e-12 {
			t.Errorf("exp q=%g: %g, want %g", q, got, want)
		}
		x := SizesQuantile(fleet.Sizes{Kind: fleet.Erlang, Param: 3}, q)
		if got := (distuv.Gamma{Alpha: 3, Beta: 3}).CDF(x); math.Abs(got-q) > 1e-9 {
			t.Errorf("erlang:3 q=%g: CDF(%g) = %g", q, x, got)
		}
		for _, c := range []float64{1, 4, 100} {
			x := SizesQuantile(fleet.Sizes{Kind: fleet.H2, Param: c}, q)
			p, m1, m2 := fleet.Sizes{Kind: fleet.H2, Param: c}.H2Phases()
			if s := p*math.Exp(-x/m1) + (1-p)*math.Exp(-x/m2); math.Abs(s-(1-q)) > 1e-9 {
				t.Errorf("h2:%g q=%g: survival at %g is %g, want %g", c, q, x, s, 1-q)
			}
		}
	}
}
