package compare

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"herd/meanfield"
)

// A hand-computed ordinary least-squares line: k = 1..4, x = 1, 3, 2, 5.
// k̄ = 2.5, x̄ = 2.75, Sxx = 5, Sxy = 5.5, so the slope is 1.1 and the
// intercept 2.75 − 1.1·2.5 = 0 (b = 0). Residuals −0.1, 0.8, −1.3, 0.6:
// RSS = 2.7, s² = 1.35, se(slope) = √(s²/Sxx) = √0.27; se(intercept) =
// √(s²(1/4 + k̄²/Sxx)) = √2.025, and se(b) = se(intercept)/slope at b = 0.
func TestFitLawKnownAnswer(t *testing.T) {
	t.Parallel()
	f, err := FitLaw([]float64{1, 2, 3, 4}, []float64{1, 3, 2, 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		got, want float64
	}{
		{"a", f.A, 1.1},
		{"b", f.B, 0},
		{"se(a)", f.ASE, math.Sqrt(0.27)},
		{"se(b)", f.BSE, math.Sqrt(2.025) / 1.1},
		{"chi2", f.Chi2, 2.7},
		{"max residual", f.MaxResidual, -1.3},
		{"at k", f.MaxResidualK, 3},
		{"rms", f.RMSResidual, math.Sqrt(2.7 / 4)},
	}
	for _, c := range cases {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %.15g, want %.15g (diff %.3g)", c.name, c.got, c.want, c.got-c.want)
		}
	}
	if f.Weighted || f.DoF != 2 || f.Points != 4 {
		t.Errorf("Weighted, DoF, Points = %v, %d, %d, want false, 2, 4", f.Weighted, f.DoF, f.Points)
	}
}

// Edges on an exact line are recovered to rounding, with or without
// weights, and a NaN edge (no edge found) is skipped.
func TestFitLawExactLine(t *testing.T) {
	t.Parallel()
	const a0, b0 = 0.87, 1.93 // arbitrary constants near the law's 0.9, 2
	var ks, xs, sig []float64
	for k := 3; k <= 16; k++ {
		ks = append(ks, float64(k))
		xs = append(xs, a0*(float64(k)-b0))
		sig = append(sig, 1e-4*a0*(float64(k)-b0))
	}
	xs[4] = math.NaN()
	for _, tc := range []struct {
		name  string
		sigma []float64
	}{{"unit", nil}, {"weighted", sig}} {
		f, err := FitLaw(ks, xs, tc.sigma)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(f.A-a0) > 1e-12 || math.Abs(f.B-b0) > 1e-11 || math.Abs(f.MaxResidual) > 1e-12 {
			t.Errorf("%s: a, b, max residual = %.15g, %.15g, %.3g, want %g, %g, 0", tc.name, f.A, f.B, f.MaxResidual, a0, b0)
		}
		if f.Points != 13 {
			t.Errorf("%s: Points = %d, want 13 (one NaN skipped)", tc.name, f.Points)
		}
	}
}

// Synthetic noisy edges: x = a₀(k − b₀) + σε with ε standard normal. The
// interval estimate ± t(0.975, n − 2)·se must cover a₀ (and b₀) in 95% of
// replications; over 1000 replications the count of hits is binomial
// (1000, 0.95), s.d. √(1000·0.95·0.05) = 6.9, so 950 ± 4 s.d. = [922, 978]
// fails by chance with probability about 10⁻⁴. The same for the weighted
// fit, whose σ are the true ones.
func TestFitLawCoverage(t *testing.T) {
	t.Parallel()
	const a0, b0, sd = 0.9, 2.0, 0.05
	const reps = 1000
	ks := []float64{3, 4, 5, 6, 8, 10, 12, 16}
	// t(0.975, 6), Student's t table (e.g. Abramowitz & Stegun Table 26.10).
	const t975 = 2.446912
	for _, weighted := range []bool{false, true} {
		r := rand.New(rand.NewPCG(16, 1))
		var hitA, hitB int
		var sig []float64
		if weighted {
			sig = make([]float64, len(ks))
			for i := range sig {
				sig[i] = sd
			}
		}
		for range reps {
			xs := make([]float64, len(ks))
			for i, k := range ks {
				xs[i] = a0*(k-b0) + sd*r.NormFloat64()
			}
			f, err := FitLaw(ks, xs, sig)
			if err != nil {
				t.Fatal(err)
			}
			tq := t975
			if weighted {
				tq = 1.959964 // σ known: the normal quantile (A&S Table 26.1)
			}
			if math.Abs(f.A-a0) <= tq*f.ASE {
				hitA++
			}
			if math.Abs(f.B-b0) <= tq*f.BSE {
				hitB++
			}
		}
		lo, hi := 922, 978
		if weighted {
			// The Birge ratio only widens intervals: coverage at least 95%.
			hi = reps
		}
		if hitA < lo || hitA > hi || hitB < lo || hitB > hi {
			t.Errorf("weighted=%v: coverage of a: %d/%d, of b: %d/%d, want within [%d, %d]", weighted, hitA, reps, hitB, reps, lo, hi)
		}
	}
}

func TestFitLawTooFew(t *testing.T) {
	t.Parallel()
	_, err := FitLaw([]float64{3, 4, 5}, []float64{1, 2, math.NaN()}, nil)
	if !errors.Is(err, ErrTooFewPoints) {
		t.Errorf("two usable points: err = %v, want ErrTooFewPoints", err)
	}
	_, err = FitLaw([]float64{3, 3, 3}, []float64{1, 2, 3}, nil)
	if !errors.Is(err, ErrTooFewPoints) {
		t.Errorf("one k: err = %v, want ErrTooFewPoints", err)
	}
}

// A synthetic sequence x(λ) = x* + c₁h + c₂h² + c₃h³ (h = 1 − λ) on the
// default ladder: the order-3 extrapolation through four loads is exact, the
// orders 0..2 are not, and the error estimate is at rounding level. With a
// quartic term as well, the order-3 value is no longer exact but lies
// within its error estimate.
func TestHeavyTrafficLimitSynthetic(t *testing.T) {
	t.Parallel()
	ladder := []float64{0.9, 0.95, 0.975, 0.99}
	const xStar = 0.95 // arbitrary, near the k = 3 limit
	cases := []struct {
		name  string
		f     func(h float64) float64
		exact bool
	}{
		{"linear", func(h float64) float64 { return xStar + 1.2*h }, true},
		{"cubic", func(h float64) float64 { return xStar + 0.7*h - 2*h*h + 5*h*h*h }, true},
		{"quartic", func(h float64) float64 { return xStar + 0.7*h - 2*h*h + 5*h*h*h + 40*h*h*h*h }, false},
		{"smooth", func(h float64) float64 { return xStar + 0.3*math.Sin(4*h) }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			xs := make([]float64, len(ladder))
			for i, l := range ladder {
				xs[i] = c.f(1 - l)
			}
			lim, err := HeavyTrafficLimit(ladder, xs, nil, LimitSettings{})
			if err != nil {
				t.Fatal(err)
			}
			diff := math.Abs(lim.Value - xStar)
			if c.exact && diff > 1e-12 {
				t.Errorf("value = %.15g, want %g (diff %.3g)", lim.Value, xStar, diff)
			}
			if !c.exact && !(diff <= lim.Err) {
				t.Errorf("value = %.15g, want %g within its error %.3g (diff %.3g)", lim.Value, xStar, lim.Err, diff)
			}
			if lim.Orders[0] != xs[3] {
				t.Errorf("order 0 = %g, want the edge at λ = 0.99, %g", lim.Orders[0], xs[3])
			}
			if lim.Order != 3 || len(lim.Loads) != 4 || lim.Loads[0] != 0.99 {
				t.Errorf("order %d, loads %v, want 3 and the ladder nearest 1 first", lim.Order, lim.Loads)
			}
		})
	}
}

// The order-1 estimate is the straight line through the two loads nearest
// to 1 (a hand calculation), and σ propagates through its Lagrange
// weights: at h = 0.01, 0.025 they are 0.025/0.015 and −0.01/0.015.
func TestHeavyTrafficLimitOrderOne(t *testing.T) {
	t.Parallel()
	lim, err := HeavyTrafficLimit([]float64{0.9, 0.975, 0.99}, []float64{5, 2, 1}, []float64{0, 0.3, 0.1}, LimitSettings{MaxOrder: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Line through (0.01, 1) and (0.025, 2): slope 1/0.015, value at 0 is 1 − 0.01/0.015 = 1/3.
	wantV := 1.0 / 3
	wantP := math.Hypot(0.025/0.015*0.1, 0.01/0.015*0.3)
	if math.Abs(lim.Value-wantV) > 1e-12 || math.Abs(lim.Propagated-wantP) > 1e-12 {
		t.Errorf("value, propagated = %.15g, %.15g, want %.15g, %.15g", lim.Value, lim.Propagated, wantV, wantP)
	}
	if math.Abs(lim.Correction-2.0/3) > 1e-12 {
		t.Errorf("correction = %g, want |1/3 − 1| = 2/3", lim.Correction)
	}
	// On a straight line the order-2 estimate repeats the order-1 one (last
	// correction 0); the error estimate keeps the correction before it,
	// |1 − 1.025| at h = 0.025 (see Limit.Correction).
	line, err := HeavyTrafficLimit([]float64{0.9, 0.95, 0.975}, []float64{1.1, 1.05, 1.025}, nil, LimitSettings{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(line.Value-1) > 1e-12 || math.Abs(line.Err-0.025) > 1e-12 || !line.Converging {
		t.Errorf("line: value %.15g ± %.15g (converging %v), want 1 ± 0.025, converging", line.Value, line.Err, line.Converging)
	}
	for _, bad := range []LimitSettings{{MaxOrder: 3}, {MaxOrder: -1}} {
		if _, err := HeavyTrafficLimit([]float64{0.9, 0.975, 0.99}, []float64{5, 2, 1}, nil, bad); err == nil {
			t.Errorf("MaxOrder %d with 3 loads: no error", bad.MaxOrder)
		}
	}
}

func TestWithinBand(t *testing.T) {
	t.Parallel()
	loads := []float64{0.95, 0.8, 0.9, 0.975, 0.99}
	// law 1: within 10% of x iff 1/x in [0.9, 1.1].
	xs := []float64{1.05, 1.3, 1.08, math.NaN(), 1.0}
	r := WithinBand(loads, xs, 1, 0.1)
	if r.From != 0.9 || r.To != 0.95 || r.Loads != 2 {
		t.Errorf("range = %+v, want 0.9–0.95 (2 loads; the NaN at 0.975 breaks the run)", r)
	}
	if r := WithinBand(loads, []float64{2, 2, 2, 2, 2}, 1, 0.1); !math.IsNaN(r.From) || r.Loads != 0 {
		t.Errorf("nowhere within: %+v, want NaN and 0 loads", r)
	}
	for _, c := range []struct {
		v, e float64
		want string
	}{{1.05, 0.01, InBandYes}, {1.2, 0.05, InBandNo}, {1.08, 0.05, InBandUndecided}} {
		if got := InBand(c.v, c.e, 1, 0.1); got != c.want {
			t.Errorf("InBand(%g ± %g, law 1) = %s, want %s", c.v, c.e, got, c.want)
		}
	}
}

// One real limit from two ladders of loads: the edge of k = 3 extrapolated
// to λ → 1, quadratically in 1 − λ, from {0.875, 0.9, 0.925} and from
// {0.9, 0.925, 0.95} must agree within the two error estimates combined,
// √(e₁² + e₂²). k = 3 has the cheapest edges with a heavy-traffic tail (at
// λ = 0.8 it has no edge, and between 0.85 and 0.875 its edge has a kink,
// so the ladders start at 0.875).
func TestHeavyTrafficLimitTwoLadders(t *testing.T) {
	if testing.Short() {
		t.Skip("four refresh-map edges up to λ = 0.95")
	}
	t.Parallel()
	const k = 3
	loads := []float64{0.875, 0.9, 0.925, 0.95}
	xs := make([]float64, len(loads))
	sig := make([]float64, len(loads))
	for i, l := range loads {
		r, err := meanfield.Edge(meanfield.EdgeSettings{Dispatchers: k, Load: l})
		if err != nil || r.Status != meanfield.Found {
			t.Fatalf("edge k=%d λ=%g: found=%v err=%v", k, l, r.Status == meanfield.Found, err)
		}
		xs[i], sig[i] = r.Scaled, meanfield.DefaultEdgeRelTol*r.Scaled
	}
	a, err := HeavyTrafficLimit(loads[:3], xs[:3], sig[:3], LimitSettings{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := HeavyTrafficLimit(loads[1:], xs[1:], sig[1:], LimitSettings{})
	if err != nil {
		t.Fatal(err)
	}
	d := math.Abs(a.Value - b.Value)
	tol := math.Hypot(a.Err, b.Err)
	t.Logf("k=%d: edges %v; ladder A %.5f ± %.5f (orders %v), ladder B %.5f ± %.5f (orders %v)", k, xs, a.Value, a.Err, a.Orders, b.Value, b.Err, b.Orders)
	if !(d <= tol) {
		t.Errorf("limits %.5f ± %.5f and %.5f ± %.5f differ by %.5f > %.5f", a.Value, a.Err, b.Value, b.Err, d, tol)
	} // The limit map (law_limit.go) computes the same limit without
	// extrapolating in λ: it must lie within each ladder's error estimate
	// (combined with its own).
	m, err := MapLimit(k, MapLimitSettings{})
	if err != nil || !m.Exists {
		t.Fatalf("map limit k=%d: exists=%v err=%v", k, m.Exists, err)
	}
	t.Logf("k=%d: limit map %.5f ± %.5f", k, m.Value, m.Err)
	for _, l := range []Limit{a, b} {
		if d, tol := math.Abs(m.Value-l.Value), math.Hypot(m.Err, l.Err); !(d <= tol) {
			t.Errorf("limit map %.5f ± %.5f and ladder %v limit %.5f ± %.5f differ by %.5f > %.5f", m.Value, m.Err, l.Loads, l.Value, l.Err, d, tol)
		}
	}
}

// MapLimit on two grids: no edge at k = 2; at k = 4 the edge from grids
// h = 0.08, 0.04 and from the default grids (0.04, 0.02) agree within the
// combined Richardson error estimates, and the default's estimate is below
// 10⁻³ relative (the grid is second order: the extrapolated values differ
// far less than the raw ones). Measured: 1.90856 ± 0.0004 (raw 1.91008,
// 1.90894) at the default; 1.90850 ± 0.00016 from h = 0.02, 0.01.
func TestMapLimitGrids(t *testing.T) {
	t.Parallel()
	r, err := MapLimit(2, MapLimitSettings{Step: 0.08, RelTol: 1e-3})
	if err != nil || r.Exists || !math.IsNaN(r.Value) {
		t.Errorf("k = 2: exists %v value %v err %v; want no edge", r.Exists, r.Value, err)
	}
	if testing.Short() {
		return
	}
	a, err := MapLimit(4, MapLimitSettings{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := MapLimit(4, MapLimitSettings{Step: 0.08, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	// The two grids at once give the bits of one after the other.
	if b1, err := MapLimit(4, MapLimitSettings{Step: 0.08}); err != nil || b1 != b {
		t.Errorf("k = 4, h = 0.08: Workers 2 gave %+v, Workers 1 %+v (err %v)", b, b1, err)
	}
	if _, err := MapLimit(4, MapLimitSettings{Workers: -1}); err == nil || !strings.Contains(err.Error(), "Workers") {
		t.Errorf("Workers = -1: err %v, want one naming Workers", err)
	}
	t.Logf("k = 4: h = 0.04/0.02: %.6f ± %.2g (raw %.6f, %.6f); h = 0.08/0.04: %.6f ± %.2g (raw %.6f)", a.Value, a.Err, a.Coarse.Edge, a.Fine.Edge, b.Value, b.Err, b.Coarse.Edge)
	if d := math.Abs(a.Value - b.Value); !(d <= math.Hypot(a.Err, b.Err)) || a.Err > 1e-3*a.Value {
		t.Errorf("k = 4: %.6f ± %.2g and %.6f ± %.2g differ by %.2g, or the error is above 1e-3 relative", a.Value, a.Err, b.Value, b.Err, d)
	}
}

// AddMapLimits keeps the limit map's x*(k) per k for the plot, NaN where
// a k failed, found no edge or did not finish, and fits the line to the
// rest: on an exact line x* = 0.8(k − 1.5) it recovers a and b.
func TestAddMapLimits(t *testing.T) {
	ks := []int{2, 3, 4, 5, 6, 8, 9}
	res := make([]MapLimitResult, len(ks))
	errs := make([]error, len(ks))
	done := make([]bool, len(ks))
	for j, k := range ks {
		done[j] = true
		res[j] = MapLimitResult{Exists: true, Value: 0.8 * (float64(k) - 1.5), Err: 1e-3}
	}
	res[0] = MapLimitResult{Value: math.NaN(), Err: math.NaN()} // k = 2: no edge
	errs[4] = errors.New("boom")                                // k = 6 failed
	done[6] = false                                             // k = 9 unfinished
	var l Law
	l.AddMapLimits(ks, res, errs, done, 0.1)
	for j, k := range ks {
		want := j >= 1 && j <= 5 && j != 4
		if got := !math.IsNaN(l.MapXStar[j]); got != want || (want && (l.MapXStar[j] != res[j].Value || l.MapXStarSE[j] != 1e-3)) {
			t.Errorf("k = %d: MapXStar %v ± %v, want a value: %v", k, l.MapXStar[j], l.MapXStarSE[j], want)
		}
	}
	f := l.MapFit
	if f == nil || f.Points != 4 || math.Abs(f.A-0.8) > 1e-12 || math.Abs(f.B-1.5) > 1e-12 {
		t.Fatalf("fit %+v; want a = 0.8, b = 1.5 on 4 points", f)
	}
	rows := map[string]int{} // counted only
	for _, r := range l.Rows {
		rows[r.Kind]++
	}
	if rows[LawRowLimitMap] != 5 || rows[LawRowFitLimitMap] != 1 || len(l.Warnings) != 1 {
		t.Errorf("rows %v, warnings %q; want 5 limit_map rows (k = 2 … 8 but the failed 6), 1 fit, 1 warning", rows, l.Warnings)
	}
}

// syntheticLaw is AnalyseLaw of edges x = f(k, λ) for sizes svc at k =
// 3 … 6 and loads 0.8, 0.9 (ladder 0.8, 0.9); f returning NaN means no
// edge.
func syntheticLaw(svc meanfield.Service, f func(k int, lam float64) float64) Law {
	s := LawSettings{Dispatchers: []int{3, 4, 5, 6}, FitLoads: []float64{0.8, 0.9}, Ladder: []float64{0.8, 0.9},
		Band: 0.1, RelTol: 1e-4, Service: svc}
	var pts []EdgePoint
	for _, es := range s.Edges() {
		p := EdgePoint{Settings: es, Done: true}
		if x := f(es.Dispatchers, es.Load); !math.IsNaN(x) {
			p.Result = meanfield.EdgeResult{Status: meanfield.Found, Scaled: x}
		}
		pts = append(pts, p)
	}
	return AnalyseLaw(s, pts)
}

// LimitVariance, the factor C of the law, is the sizes' squared coefficient of variation E[S²] − 1:
// 1 for exp, C for h2:C, 1/K for Erlang-K (meanfield.Service.SecondMoment).
func TestLawLimitVariance(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		svc  meanfield.Service
		want float64
	}{
		{meanfield.ExpService(), 1},
		{meanfield.H2Service(4), 4},
		{meanfield.ErlangService(2), 0.5},
	} {
		if got := LimitVariance(c.svc); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("%s: C = %.17g, want %g", c.svc, got, c.want)
		}
	}
}

// Edges that follow x = C·0.9(k − 2) exactly, for exp, h2:2 and erlang:2:
// each law's fits of x/C recover a = 0.9, b = 2, its rows carry the law
// C·0.9(k−2) and ratio 1 with their sizes and C, and the pooled fit over
// the three sizes is the same line with every point within the band.
// Then erlang:2 edges 30% high: the pooled line misses them, and the band
// note lists them with their ratio 1.3.
func TestPoolLaws(t *testing.T) {
	t.Parallel()
	sizes := []meanfield.Service{meanfield.ExpService(), meanfield.H2Service(2), meanfield.ErlangService(2)}
	exact := func(c, high float64) func(int, float64) float64 {
		return func(k int, lam float64) float64 { return high * c * 0.9 * float64(k-2) }
	}
	var laws []Law
	for _, svc := range sizes {
		l := syntheticLaw(svc, exact(LimitVariance(svc), 1))
		for i, f := range l.Fits {
			if f == nil || math.Abs(f.A-0.9) > 1e-12 || math.Abs(f.B-2) > 1e-12 {
				t.Fatalf("%s λ = %g: fit %+v, want a = 0.9, b = 2", svc, l.Loads[i], f)
			}
		}
		for _, r := range l.Rows {
			if r.Sizes != svc.String() || r.C != LimitVariance(svc) {
				t.Errorf("%s: %s row has sizes %q, C %g", svc, r.Kind, r.Sizes, r.C)
			}
			if r.Kind == LawRowEdge && (math.Abs(r.Law-l.C*0.9*float64(r.Dispatchers-2)) > 1e-12 || math.Abs(r.Ratio-1) > 1e-12) {
				t.Errorf("%s k = %d λ = %g: law %g, ratio %g; want C·0.9(k−2), 1", svc, r.Dispatchers, r.Load, r.Law, r.Ratio)
			}
		}
		laws = append(laws, l)
	}
	p := PoolLaws(laws)
	for i, f := range p.Pooled {
		if f == nil || f.Points != 12 || math.Abs(f.A-0.9) > 1e-12 || math.Abs(f.B-2) > 1e-12 {
			t.Fatalf("λ = %g: pooled fit %+v, want a = 0.9, b = 2 on 12 points", p.Laws[0].Loads[i], f)
		}
	}
	if n := countRows(p.Rows, LawRowFitSizes); n != 2 || !anyContains(p.Notes, "within 10% of the line at all 12 points") ||
		!anyContains(p.Notes, "sizes erlang:2 (C = 0.5): x = T_edge(1−λ)² within 10% of C·0.9(k−2) at all 8 edges") {
		t.Errorf("%d fit_sizes rows, notes %q; want 2 and every point within", n, p.Notes)
	}

	laws[2] = syntheticLaw(sizes[2], exact(0.5, 1.3))
	p = PoolLaws(laws)
	if f := p.Pooled[1]; f == nil || math.Abs(f.A-0.9*1.1) > 1e-12 {
		t.Fatalf("λ = 0.9: pooled fit %+v, want a = 0.9·(1 + 1 + 1.3)/3 = 0.99", f)
	}
	if !anyContains(p.Notes, "within 10% of the line at 8 of 12 points; outside: k = 3 erlang:2 (+18.2%)") ||
		!anyContains(p.Notes, "at none of the 8 edges: k = 3 λ = 0.8 (ratio 1.300)") {
		t.Errorf("notes %q; want the erlang:2 points outside the pooled line (1.3/1.1 − 1 = +18.2%%) and outside the law (ratio 1.3)", p.Notes)
	}
}

// AddScaledMapLimits for C = 1 is AddMapLimits; for erlang:2 (C = 0.5) its
// limit_map rows are C·x*(k) against C·0.9(k−2), with the same ratio and
// the fit of x*/C = x*(k).
func TestLawScaledMapLimits(t *testing.T) {
	t.Parallel()
	ks := []int{3, 4, 5, 6}
	res := make([]MapLimitResult, len(ks))
	errs := make([]error, len(ks))
	done := make([]bool, len(ks))
	for j, k := range ks {
		done[j] = true
		res[j] = MapLimitResult{Exists: true, Value: 0.8 * (float64(k) - 1.5), Err: 1e-3}
	}
	edges := func(k int, lam float64) float64 { return 0.9 * float64(k-2) }
	a, b := syntheticLaw(meanfield.ExpService(), edges), syntheticLaw(meanfield.ExpService(), edges)
	a.AddMapLimits(ks, res, errs, done, 0.1)
	b.AddScaledMapLimits(ks, res, errs, done, 0.1)
	// The rows as text, without sizes and C (AddMapLimits leaves them
	// unset) and with the fits by value.
	text := func(l Law) string {
		var s strings.Builder
		for _, r := range l.Rows {
			f := r.Fit
			r.Sizes, r.C, r.Fit = "", 0, nil
			fmt.Fprintf(&s, "%v", r)
			if f != nil {
				fmt.Fprintf(&s, " %v", *f)
			}
			s.WriteString("\n")
		}
		return s.String() + strings.Join(l.Notes, "\n")
	}
	if ta, tb := text(a), text(b); ta != tb {
		t.Errorf("C = 1: AddScaledMapLimits differs from AddMapLimits:\n%s\nwant\n%s", tb, ta)
	}
	e := syntheticLaw(meanfield.ErlangService(2), edges)
	e.AddScaledMapLimits(ks, res, errs, done, 0.1)
	j := 0
	for _, r := range e.Rows {
		if r.Kind != LawRowLimitMap {
			continue
		}
		want := 0.5 * res[j].Value
		if math.Abs(r.X-want) > 1e-12 || math.Abs(r.XSE-0.5e-3) > 1e-15 || math.Abs(r.Law-0.45*float64(ks[j]-2)) > 1e-12 ||
			math.Abs(r.Ratio-res[j].Value/(0.9*float64(ks[j]-2))) > 1e-12 || r.Sizes != "erlang:2" || e.MapXStar[j] != r.X {
			t.Errorf("k = %d: %+v; want x = %g ± 0.0005, law %g", ks[j], r, want, 0.45*float64(ks[j]-2))
		}
		j++
	}
	if f := e.MapFit; j != 4 || f == nil || math.Abs(f.A-0.8) > 1e-12 || math.Abs(f.B-1.5) > 1e-12 || !anyContains(e.Notes, "limit_map rows are C·x*(k), C = 0.5") {
		t.Errorf("%d limit_map rows, fit %+v, notes %q; want 4, a = 0.8, b = 1.5 and the scaling note", j, f, e.Notes)
	}
}

func countRows(rows []LawRow, kind string) int {
	n := 0
	for _, r := range rows {
		if r.Kind == kind {
			n++
		}
	}
	return n
}

func anyContains(v []string, s string) bool {
	for _, x := range v {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}
