package meanfield

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestDiscreteLyapunovKnown checks Smith's doubling on cases with a closed
// form: for diagonal A, Σ_ij = Q_ij/(1 − a_i·a_j) (the geometric series
// Σ_t a_i^t a_j^t Q_ij).
func TestDiscreteLyapunovKnown(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		a    []float64
		q    []float64 // row-major symmetric
	}{
		{"scalar", []float64{0.5}, []float64{1}}, // Σ = 1/(1 − 0.25) = 4/3
		{"diagonal", []float64{0.9, -0.5}, []float64{2, 0.3, 0.3, 1}},
		{"slow", []float64{0.999, 0.1, 0}, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := len(c.a)
			A := mat.NewDense(n, n, nil)
			for i, a := range c.a {
				A.Set(i, i, a)
			}
			Q := mat.NewSymDense(n, c.q)
			S, err := DiscreteLyapunov(A, Q)
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				for j := range n {
					want := Q.At(i, j) / (1 - c.a[i]*c.a[j])
					if got := S.At(i, j); math.Abs(got-want) > 1e-10*math.Max(1, math.Abs(want)) {
						t.Errorf("Σ[%d,%d] = %.15g, want %.15g (diff %.3g)", i, j, got, want, got-want)
					}
				}
			}
		})
	}
}

// TestDiscreteLyapunovUnstable checks that a spectral radius of one fails
// with ErrNotConverged instead of returning a divergent sum.
func TestDiscreteLyapunovUnstable(t *testing.T) {
	t.Parallel()
	A := mat.NewDense(2, 2, []float64{1.01, 0, 0, 0.5})
	_, err := DiscreteLyapunov(A, mat.NewSymDense(2, []float64{1, 0, 0, 1}))
	if !errors.Is(err, ErrNotConverged) {
		t.Fatalf("err = %v, want ErrNotConverged", err)
	}
}

// TestLyapunovAgainstLinearSimulation runs the linearised refresh map
// y_{n+1} = J·y_n + ε_n, ε_n ~ N(0, Q), with the J and Q of k = 5,
// λ = 0.9, T = 350 (package doc, §8, (8.3)) and checks the sample variance
// of the board mean and of the window end τ_{c+1} against Σ's, within 4
// standard errors from batch means.
func TestLyapunovAgainstLinearSimulation(t *testing.T) {
	t.Parallel()
	ln, err := Linearise(FiniteN{Refresh: Refresh{Dispatchers: 5, Load: 0.9, Period: 350}, Servers: 2})
	if err != nil {
		t.Fatal(err)
	}
	n := ln.Rows
	ns, err := newNoiseSampler(ln.Noise, 1)
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string][]float64{
		"board mean": boardMeanGradient(n, 1),
		"window end": borderGradient(5, 0.9, ln.Window+1, n, 1),
	}
	names := []string{"board mean", "window end"}
	const steps, batches = 40000, 40
	rng := rand.New(rand.NewPCG(1, 2))
	y := mat.NewVecDense(n, nil)
	var ny mat.VecDense
	sums := make(map[string][]float64)
	for _, k := range names {
		sums[k] = make([]float64, batches)
	}
	eps := make([]float64, n)
	for s := -1000; s < steps; s++ {
		ny.MulVec(ln.Jacobian, y)
		clear(eps)
		for _, v := range ns.modes {
			z := rng.NormFloat64()
			for r, e := range v {
				eps[r] += z * e
			}
		}
		for r := range n {
			y.SetVec(r, ny.AtVec(r)+eps[r])
		}
		if s < 0 {
			continue
		}
		for _, k := range names {
			v := dotv(dirs[k], y.RawVector().Data)
			sums[k][s*batches/steps] += v * v / float64(steps/batches)
		}
	}
	for _, k := range names {
		var m, ss float64
		for _, b := range sums[k] {
			m += b / batches
		}
		for _, b := range sums[k] {
			ss += (b - m) * (b - m)
		}
		se := math.Sqrt(ss / (batches - 1) / batches)
		want := quad(ln.Cov, dirs[k])
		if math.Abs(m-want) > 4*se {
			t.Errorf("%s: simulated variance %.5g ± %.2g, Lyapunov %.5g (diff %.3g)", k, m, se, want, m-want)
		}
	}
}

// TestBiasTermsQuadratic checks the 1/N term of package doc §8, (8.4),
// on maps with a closed form. For x' = a·x + b·x² + ε, Var ε = q/N, the
// stationary mean is x* + c/N + O(N⁻²) with c = b·s/(1 − a), s = q/(1 − a²)
// (take expectations: E y = a·E y + b·E y², E y² = s/N + O(N⁻²)); for the
// observable R = x², ½R”·s = s. The 2-D map has independent coordinates
// (diagonal J and Q) and a cross term: x₁' = a₁x₁ + b·x₁x₂ (E x₁x₂ = 0 to
// this order), x₂' = a₂x₂ + e·x₁², so c = (0, e·s₁/(1 − a₂)).
func TestBiasTermsQuadratic(t *testing.T) {
	t.Parallel()
	t.Run("scalar", func(t *testing.T) {
		a, b, q := 0.6, -0.7, 2.0
		s := q / (1 - a*a)
		eval := func(y []float64) ([]float64, float64, error) {
			return []float64{a*y[0] + b*y[0]*y[0]}, y[0] * y[0], nil
		}
		J := mat.NewDense(1, 1, []float64{a})
		S, err := DiscreteLyapunov(J, mat.NewSymDense(1, []float64{q}))
		if err != nil {
			t.Fatal(err)
		}
		c, d2, err := biasTerms(eval, []float64{0}, J, S, func([]float64) float64 { return 0.01 })
		if err != nil {
			t.Fatal(err)
		}
		if want := b * s / (1 - a); math.Abs(c[0]-want) > 1e-9 {
			t.Errorf("c = %.12g, want %.12g (diff %.3g)", c[0], want, c[0]-want)
		}
		if math.Abs(d2-s) > 1e-9 {
			t.Errorf("½R''[Σ] = %.12g, want %.12g", d2, s)
		}
	})
	t.Run("plane", func(t *testing.T) {
		a1, a2, b, e := 0.5, -0.3, 1.5, 0.8
		q1, q2 := 1.0, 3.0
		s1 := q1 / (1 - a1*a1)
		eval := func(y []float64) ([]float64, float64, error) {
			return []float64{a1*y[0] + b*y[0]*y[1], a2*y[1] + e*y[0]*y[0]}, 0, nil
		}
		J := mat.NewDense(2, 2, []float64{a1, 0, 0, a2})
		S, err := DiscreteLyapunov(J, mat.NewSymDense(2, []float64{q1, 0, 0, q2}))
		if err != nil {
			t.Fatal(err)
		}
		c, _, err := biasTerms(eval, []float64{0, 0}, J, S, func([]float64) float64 { return 0.01 })
		if err != nil {
			t.Fatal(err)
		}
		want := []float64{0, e * s1 / (1 - a2)}
		for i := range want {
			if math.Abs(c[i]-want[i]) > 1e-9 {
				t.Errorf("c[%d] = %.12g, want %.12g", i, c[i], want[i])
			}
		}
	})
}

// TestServerLawsReproduceMap checks package doc §8, (8.1): the class laws
// M_b mix to the map's image, Σ_b p_b·M_b = F(p), on balanced fixed points
// and on boards far from one (the map is computed by refresh.go's own
// aggregated chain, an independent path).
func TestServerLawsReproduceMap(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		k     int
		lam   float64
		T     float64
		board []float64
	}{
		{"k5 balanced", 5, 0.9, 350, nil},
		{"k3 balanced", 3, 0.8, 40, nil},
		{"k10 half", 10, 0.9, 800, BoardHalf(40)},
		{"k5 spread", 5, 0.95, 200, BoardSpread(30)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := Refresh{Dispatchers: c.k, Load: c.lam, Period: c.T}
			p := c.board
			if p == nil {
				at, err := FindAttractor(r, BoardEmpty(), AttractorSettings{})
				if err != nil {
					t.Fatal(err)
				}
				p = at.Board
			}
			res, err := r.Apply(p)
			if err != nil {
				t.Fatal(err)
			}
			sl, err := serverLaws(c.k, c.lam, c.T, p, 0)
			if err != nil {
				t.Fatal(err)
			}
			if d := l1(sl.next, res.Next); d > 1e-10 {
				t.Errorf("‖Σ p_b M_b − F(p)‖₁ = %.3g, want ≤ 1e-10", d)
			}
			for i, m := range sl.laws {
				var s float64
				for _, v := range m {
					s += v
				}
				if math.Abs(s-1) > 1e-10 {
					t.Errorf("class %d: law sums to %.15g", sl.classes[i], s)
				}
			}
		})
	}
}

// TestRefinedMeanLongRun checks the 1/N terms of package doc §8, (8.4),
// against a long run of the noisy map x_{n+1} = F(x_n) + ε_n, ε_n ~
// N(0, Q/N), at N = 10¹⁰, where the fluctuation stays on the piece of the
// map that holds x* (BorderZ ≥ 100: k = 5, λ = 0.9, T = 350, the window
// end's standard deviation 5·10⁻⁴, 1.4 from its border; and h2:4 sizes at
// k = 3, λ = 0.8, T = 40, whose truncated state holds a phase of almost no
// mass beside its last row, which once made the 1/N terms rounding error,
// stepFor). Two runs with opposite noise (antithetic) cancel the first
// order; their average board mean and response, less x*'s, estimate the
// 1/N terms. The band is 4 standard errors from batch means.
func TestRefinedMeanLongRun(t *testing.T) {
	if testing.Short() {
		t.Skip("long run")
	}
	t.Parallel()
	const N = 1e10
	cases := []struct {
		name string
		r    Refresh
	}{
		{"k5_l0.9_T350", Refresh{Dispatchers: 5, Load: 0.9, Period: 350}},
		{"h2_4_k3_l0.8_T40", Refresh{Dispatchers: 3, Load: 0.8, Period: 40, Service: H2Service(4)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			refinedLongRun(t, c.r, N)
		})
	}
}

// refinedLongRun is TestRefinedMeanLongRun at r and N.
func refinedLongRun(t *testing.T, r Refresh, N int) {
	ln, err := Linearise(FiniteN{Refresh: r, Servers: N})
	if err != nil {
		t.Fatal(err)
	}
	if ln.BorderZ < 100 {
		t.Fatalf("BorderZ = %.3g: the run would leave the piece", ln.BorderZ)
	}
	if r.Service.PhaseCount() > 1 {
		tiny := false
		for _, v := range ln.State {
			tiny = tiny || v < DefaultFiniteRowMin
		}
		if !tiny {
			t.Fatal("no entry of the truncated state below RowMin: the case no longer tests stepFor's floor")
		}
	}
	ns, err := newNoiseSampler(ln.Noise, N)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := NewRefreshMap(r)
	at, err := FindAttractor(r, r.Service.Lift(BoardEmpty()), AttractorSettings{Tol: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	full := at.Board
	const steps, batches, burn = 1500, 15, 100
	meanSums := make([]float64, batches)
	respSums := make([]float64, batches)
	rngs := [2]*rand.Rand{rand.New(rand.NewPCG(3, 4)), rand.New(rand.NewPCG(3, 4))}
	xs := [2][]float64{append([]float64(nil), full...), append([]float64(nil), full...)}
	res0, _ := m.Apply(nil, full)
	for s := -burn; s < steps; s++ {
		var mean, resp float64
		for c := range 2 {
			res, err := m.Apply(nil, xs[c])
			if err != nil {
				t.Fatal(err)
			}
			mean += res.BoardMean / 2
			resp += res.Response / 2
			xs[c], _ = ns.addSigned(res.Next, rngs[c], 1-2*float64(c))
		}
		if s >= 0 {
			meanSums[s*batches/steps] += (mean - res0.BoardMean) / (steps / batches)
			respSums[s*batches/steps] += (resp - res0.Response) / (steps / batches)
		}
	}
	check := func(name string, sums []float64, term float64) {
		var mu, ss float64
		for _, b := range sums {
			mu += b / batches
		}
		for _, b := range sums {
			ss += (b - mu) * (b - mu)
		}
		se := math.Sqrt(ss / (batches - 1) / batches)
		want := term / float64(N)
		if math.Abs(mu-want) > 4*se+1e-3*math.Abs(want) {
			t.Errorf("%s: long run %.4g ± %.2g, 1/N term %.4g (diff %.3g)", name, mu, se, want, mu-want)
		}
		t.Logf("%s: long run %.4g ± %.2g, 1/N term %.4g", name, mu, se, want)
	}
	check("board mean", meanSums, ln.BoardMeanTerm)
	check("response", respSums, ln.ResponseTerm)
}

// TestFiniteEdgeKnownAnswer is the finite-N edge's known-answer test
// (package doc, §8, (8.6)) at k = 5, λ = 0.8, N = 100: herd bracket
// (--servers 100 --dispatchers 5 --load 0.8, seed 1, 6 runs of 1,000
// refreshes, resolution 0.05; measured for issue 45) brackets the edge at
// T(1−λ)² ∈ [3.47952, 3.5586] (the map's own edge is 3.16320). The
// prediction must fall inside it or within one bracket width (the issue's
// criterion); nothing in the prediction is fitted to it.
func TestFiniteEdgeKnownAnswer(t *testing.T) {
	t.Parallel()
	const lo, hi = 3.47952, 3.5586
	r, err := FiniteEdge(FiniteEdgeSettings{Dispatchers: 5, Load: 0.8, Servers: 100, ModelScaled: 3.1631964844955442, Workers: 2, Replications: 6, Levels: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != Found {
		t.Fatalf("status %v", r.Status)
	}
	w := hi - lo
	if r.Scaled < lo-w || r.Scaled > hi+w {
		t.Errorf("predicted edge %.4f [%.4f, %.4f], bracket [%.4f, %.4f] ± one width %.3f", r.Scaled, r.Lower, r.Upper, lo, hi, w)
	}
	if !(r.Lower <= r.Scaled && r.Scaled <= r.Upper) {
		t.Errorf("interval [%.4f, %.4f] does not hold %.4f", r.Lower, r.Upper, r.Scaled)
	}
}

// TestFiniteEdgeKnownAnswerH2 is the same with h2:4 sizes, on the
// servers' runs (ParticlesAuto's choice there) at k = 5, λ = 0.8, N = 25:
// herd bracket (--servers 25,100 --dispatchers 5 --load 0.8 --sizes h2:4,
// seed 1, 6 runs of 1,000 refreshes) brackets the edge at T(1−λ)² ∈
// [13.4806, 14.2141] (the map's own edge 10.79125). About 6 s on two
// cores.
func TestFiniteEdgeKnownAnswerH2(t *testing.T) {
	t.Parallel()
	const lo, hi = 13.4806, 14.2141
	r, err := FiniteEdge(FiniteEdgeSettings{Dispatchers: 5, Load: 0.8, Service: H2Service(4), Servers: 25, ModelScaled: 10.791245876606496, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != Found {
		t.Fatalf("status %v", r.Status)
	}
	if w := hi - lo; r.Scaled < lo-w || r.Scaled > hi+w {
		t.Errorf("predicted edge %.4f [%.4f, %.4f], bracket [%.4f, %.4f] ± one width %.3f", r.Scaled, r.Lower, r.Upper, lo, hi, w)
	}
}

// TestParticleMapsReuse checks that a worker's map set, kept from run to
// run and from period to period (particleMaps), is pure memoisation: a run
// on a set that has already run at another period and with another seed
// gives, float bit for float bit, what the same run gives on fresh maps
// (with exponential sizes with and without the response, which the full
// map computes; with phase-type sizes with it). It also checks that the
// set is reused at all: the central load level's loose map (the load λ itself)
// serves both periods, and the same run again keeps every level's map and
// makes no new far-window plan (farPlanCache).
func TestParticleMapsReuse(t *testing.T) {
	t.Parallel()
	type runOut struct {
		tip, maps int
		resp      uint64
	}
	do := func(pm *particleMaps, r Refresh, periods int, seed uint64, response bool) runOut {
		t.Helper()
		rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		theta := max(3/(1-r.Load), 0.1*r.Period)
		tip, maps, resp, err := pm.run(r, 100, rng, periods, theta, r.Service.Lift(BoardEmpty()), response, nil)
		if err != nil {
			t.Fatal(err)
		}
		return runOut{tip, maps, math.Float64bits(resp)}
	}
	for _, c := range []struct {
		svc       Service
		periods   int
		responses []bool
	}{{ExpService(), 60, []bool{false, true}}, {ErlangService(2), 15, []bool{true}}} {
		svc := c.svc
		r := Refresh{Dispatchers: 5, Load: 0.9, Period: 330, Service: svc}
		other := r
		other.Period = 290
		for _, response := range c.responses {
			n := c.periods
			want := do(new(particleMaps), r, n, 3, response)
			used := new(particleMaps)
			// The same seed as the run compared: the same load levels.
			do(used, other, n, 3, !response)
			central := used.loose[particleLevels/2] // the load λ itself
			if central == [particleLooseSteps]*RefreshMap{} {
				t.Fatalf("%v: the run at T = %v never used the central load level: pick another seed", svc, other.Period)
			}
			do(used, r, n, 13, response)
			if got := do(used, r, n, 3, response); got != want {
				t.Errorf("%v, response %v: run on reused maps %+v, on fresh maps %+v", svc, response, got, want)
			}
			if used.loose[particleLevels/2] != central {
				t.Errorf("%v: the central level's map was made again at another period", svc)
			}
			var made int
			var levels [(particleLooseSteps + 1) * particleLevels]*RefreshMap
			for j, m := range used.all() {
				if m != nil {
					made += m.far.made
				}
				levels[j] = m
			}
			do(used, r, n, 3, response)
			for j, m := range used.all() {
				if m != levels[j] {
					t.Errorf("%v: the map of level %d was made again for the same run", svc, j)
				}
				if m != nil {
					made -= m.far.made
				}
			}
			if made != 0 {
				t.Errorf("%v: the same run again made %d far plans, want none", svc, -made)
			}
		}
	}
}

// TestFiniteEdgeSeedsStable: FiniteEdge's runs do not change when the
// model edge moves in its last bits (as it does when the map's rounding
// changes): with ModelScaled one ulp apart, every point has the same runs,
// tips, exposure and median tip. The seeds once followed each probe's T
// bit for bit, so that any such change re-rolled every run (k = 10,
// λ = 0.95, N = 100 went from 29,737 maps to 17,684 and its edge from
// 7.93 to 7.87); this test fails with that keying.
func TestFiniteEdgeSeedsStable(t *testing.T) {
	x0 := 3.1631964844955442
	runs := func(x float64) string {
		r, err := FiniteEdge(FiniteEdgeSettings{Dispatchers: 5, Load: 0.8, Servers: 30, ModelScaled: x, Seed: 1, Refreshes: 100, Replications: 4, Levels: 1})
		if err != nil {
			t.Fatal(err)
		}
		out := fmt.Sprint(r.Status, len(r.Points))
		for _, p := range r.Points {
			out += fmt.Sprintf(" |%v %d %d %v %v", p.Balanced, p.Runs, p.Tipped, p.Exposure, p.MedianTip)
		}
		return out
	}
	if a, b := runs(x0), runs(math.Nextafter(x0, 1)); a != b {
		t.Errorf("the model edge one ulp up changes the runs:\n%s\n%s", a, b)
	}
}

// TestFiniteEdgeWorkers checks that FiniteEdge and FiniteMean give the
// same result, float bit for float bit, with one worker and with three
// (with three, the runs share out the workers' map sets, particleMapSets,
// in an order left to the scheduler), and that each of FiniteEdge's points
// is what its runs give on fresh maps, although the search's map sets
// serve every point in turn (particleMaps). The servers' runs
// (ParticlesServers) likewise give the same with one worker and three.
func TestFiniteEdgeWorkers(t *testing.T) {
	t.Parallel()
	s := FiniteEdgeSettings{Dispatchers: 5, Load: 0.8, Servers: 30, ModelScaled: 3.1631964844955442, Seed: 1, Refreshes: 100, Replications: 4, Levels: 1}
	point := func(p FiniteEdgePoint) string {
		return fmt.Sprintf("|%x %v %d %d %x %x", math.Float64bits(p.Scaled), p.Balanced, p.Runs, p.Tipped, math.Float64bits(p.Exposure), math.Float64bits(p.MedianTip))
	}
	edge := func(w int, kind Particles) (string, FiniteEdgeResult) {
		s := s
		s.Workers, s.Particles = w, kind
		r, err := FiniteEdge(s)
		if err != nil {
			t.Fatal(err)
		}
		out := fmt.Sprintf("%v %v %x %x %x %d", r.Status, r.HazardFit, math.Float64bits(r.Scaled), math.Float64bits(r.Lower), math.Float64bits(r.Upper), r.Maps)
		for _, p := range r.Points {
			out += point(p)
		}
		return out, r
	}
	mean := func(w int, kind Particles) string {
		f := FiniteN{Refresh: Refresh{Dispatchers: 5, Load: 0.7, Period: 60}, Servers: 10}
		r, err := FiniteMean(f, FiniteRun{Periods: 100, Replications: 5, Seed: 7, Workers: w, Particles: kind})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%x %x %d %d %d", math.Float64bits(r.Response), math.Float64bits(r.ResponseSE), r.Runs, r.Tipped, r.Maps)
	}
	one, r := edge(1, ParticlesAuto)
	if three, _ := edge(3, ParticlesAuto); one != three {
		t.Errorf("FiniteEdge: one worker\n%s\nthree\n%s", one, three)
	}
	sone, _ := edge(1, ParticlesServers)
	if sthree, _ := edge(3, ParticlesServers); sone != sthree || sone == one {
		t.Errorf("FiniteEdge, the servers' runs: one worker\n%s\nthree\n%s\n(the board's: %s)", sone, sthree, one)
	}
	s = s.withDefaults()
	for _, p := range r.Points {
		if !p.Balanced {
			continue
		}
		rr := Refresh{Dispatchers: s.Dispatchers, Load: s.Load, Period: p.Refresh}
		var st Stats
		q, err := particlePoint(s, rr, p.key, false, newParticleMapSets(1), &st)
		if err != nil {
			t.Fatal(err)
		}
		q.Scaled, q.Refresh, q.Balanced = p.Scaled, p.Refresh, true
		if p.key != p.Scaled/s.ModelScaled && math.Abs(p.key*s.ModelScaled/p.Scaled-1) > 1e-15 {
			t.Errorf("T(1−λ)² = %v: seed key %v, not its place relative to the model edge %v", p.Scaled, p.key, s.ModelScaled)
		}
		if got, want := point(p), point(q); got != want {
			t.Errorf("T(1−λ)² = %v: the search's point %s, on fresh maps %s", p.Scaled, got, want)
		}
	}
	for _, kind := range []Particles{ParticlesBoard, ParticlesServers} {
		if one, three := mean(1, kind), mean(3, kind); one != three {
			t.Errorf("FiniteMean, particles %v: one worker %s, three %s", kind, one, three)
		}
	}
}

// TestFiniteValidate checks that bad settings are errors naming the field.
func TestFiniteValidate(t *testing.T) {
	t.Parallel()
	ok := Refresh{Dispatchers: 5, Load: 0.9, Period: 300}
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"servers", FiniteN{Refresh: ok, Servers: 1}.Validate(), "Servers"},
		{"rowmin", FiniteN{Refresh: ok, Servers: 10, RowMin: 0.5}.Validate(), "RowMin"},
		{"load", FiniteN{Refresh: Refresh{Dispatchers: 5, Load: 1, Period: 300}, Servers: 10}.Validate(), "Load"},
		{"edge servers", FiniteEdgeSettings{Dispatchers: 5, Load: 0.9, Servers: 0}.Validate(), "Servers"},
		{"edge refreshes", FiniteEdgeSettings{Dispatchers: 5, Load: 0.9, Servers: 10, Refreshes: 5}.Validate(), "Refreshes"},
		{"edge replications", FiniteEdgeSettings{Dispatchers: 5, Load: 0.9, Servers: 10, Replications: 1}.Validate(), "Replications"},
		{"edge model", FiniteEdgeSettings{Dispatchers: 5, Load: 0.9, Servers: 10, ModelScaled: -1}.Validate(), "ModelScaled"},
		{"edge load", FiniteEdgeSettings{Dispatchers: 5, Load: 0, Servers: 10}.Validate(), "Load"},
		{"edge particles", FiniteEdgeSettings{Dispatchers: 5, Load: 0.9, Servers: 10, Particles: 3}.Validate(), "Particles"},
		{"edge particles servers", FiniteEdgeSettings{Dispatchers: 5, Load: 0.9, Servers: 100001, Particles: ParticlesServers}.Validate(), "Particles"},
	}
	for _, c := range cases {
		if c.err == nil || !strings.HasPrefix(c.err.Error(), "meanfield: ") || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: err = %v, want a meanfield error naming %s", c.name, c.err, c.want)
		}
	}
	if _, err := FiniteMean(FiniteN{Refresh: ok, Servers: 10}, FiniteRun{Periods: 3}); err == nil || !strings.Contains(err.Error(), "Periods") {
		t.Errorf("FiniteMean: err = %v, want one naming Periods", err)
	}
	if _, err := FiniteMean(FiniteN{Refresh: ok, Servers: 200000}, FiniteRun{Particles: ParticlesServers}); err == nil || !strings.Contains(err.Error(), "Particles") {
		t.Errorf("FiniteMean: err = %v, want one naming Particles", err)
	}
	// Below the edge the empty board herds: no balanced state to linearise.
	_, err := Linearise(FiniteN{Refresh: Refresh{Dispatchers: 5, Load: 0.9, Period: 250}, Servers: 100, Attractor: AttractorSettings{MaxIter: 200}})
	if !errors.Is(err, ErrNotBalanced) {
		t.Errorf("below the edge: err = %v, want ErrNotBalanced", err)
	}
}

// TestLinearNoiseK5 pins the linear-noise picture at k = 5, λ = 0.9,
// T = 350, N = 100 to properties that hold whatever the numbers: the map
// check of (8.1), Σ symmetric and positive semi-definite with Σ·1 = 0 (the
// noise moves no mass), and the upcrossing probability below the
// crossing probability.
func TestLinearNoiseK5(t *testing.T) {
	t.Parallel()
	ln, err := Linearise(FiniteN{Refresh: Refresh{Dispatchers: 5, Load: 0.9, Period: 350}, Servers: 100})
	if err != nil {
		t.Fatal(err)
	}
	if ln.MapCheck > 1e-10 {
		t.Errorf("MapCheck = %.3g, want ≤ 1e-10", ln.MapCheck)
	}
	n := ln.Rows
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	var v mat.VecDense
	v.MulVec(ln.Cov, mat.NewVecDense(n, ones))
	if s := mat.Norm(&v, math.Inf(1)); s > 1e-6*mat.Norm(ln.Cov, math.Inf(1)) {
		t.Errorf("‖Σ·1‖∞ = %.3g", s)
	}
	var eig mat.EigenSym
	eig.Factorize(ln.Cov, false)
	vals := eig.Values(nil)
	if vals[0] < -1e-9*vals[n-1] {
		t.Errorf("Σ has eigenvalue %.3g < 0", vals[0])
	}
	if !(ln.UpcrossPerPeriod <= ln.CrossPerPeriod) || !(ln.SpectralRadius < 1) {
		t.Errorf("upcross %.3g, cross %.3g, spectral radius %.3g", ln.UpcrossPerPeriod, ln.CrossPerPeriod, ln.SpectralRadius)
	}
	t.Logf("%s", fmt.Sprintf("board mean %.4f sd %.3f, border %.3f sd %.3f z %.3f", ln.BoardMean, ln.BoardMeanSD, ln.Border, ln.BorderSD, ln.BorderZ))
}

// noiseSampler draws one period's noise ε ~ N(0, Q/N) from the
// eigenpairs of Q that carry all but 10⁻¹⁰ of its trace.
type noiseSampler struct {
	n     int
	modes [][]float64 // √(s_m/N)·u_m
	z     []float64
}

func newNoiseSampler(Q *mat.SymDense, N int) (*noiseSampler, error) {
	var eig mat.EigenSym
	if !eig.Factorize(Q, true) {
		return nil, fmt.Errorf("meanfield: finite fleet: %w: eigen decomposition of the noise", ErrNotConverged)
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	n := len(vals)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sortByDesc(order, vals)
	var trace float64
	for _, s := range vals {
		trace += max(s, 0)
	}
	ns := &noiseSampler{n: n}
	var done float64
	for _, i := range order {
		s := vals[i]
		if s <= 0 || done >= (1-1e-10)*trace {
			break
		}
		done += s
		c := math.Sqrt(s / float64(N))
		v := make([]float64, n)
		for r := range n {
			v[r] = c * vecs.At(r, i)
		}
		ns.modes = append(ns.modes, v)
	}
	ns.z = make([]float64, len(ns.modes))
	return ns, nil
}

// addSigned adds sign times one draw of the noise to x's first n rows (x
// grown as needed; sign −1: the antithetic draw), sets negative rows to
// zero and renormalises; it returns x and the mass the clipping removed.
func (ns *noiseSampler) addSigned(x []float64, rng *rand.Rand, sign float64) ([]float64, float64) {
	for len(x) < ns.n {
		x = append(x, 0)
	}
	for m, v := range ns.modes {
		z := sign * rng.NormFloat64()
		_ = m
		for r, e := range v {
			x[r] += z * e
		}
	}
	var clip, s float64
	for i, e := range x {
		if e < 0 {
			clip -= e
			x[i] = 0
		}
		s += x[i]
	}
	for i := range x {
		x[i] /= s
	}
	for len(x) > 1 && x[len(x)-1] == 0 {
		x = x[:len(x)-1]
	}
	return x, clip
}

// TestLinearNoisePhaseType runs the picture on a phase-type state (Erlang-2
// sizes, the state the joint law of queue and phase, package doc §2):
// the noise and Σ move no mass and Σ is positive semi-definite.
func TestLinearNoisePhaseType(t *testing.T) {
	t.Parallel()
	ln, err := Linearise(FiniteN{Refresh: Refresh{Dispatchers: 5, Load: 0.8, Period: 150, Service: ErlangService(2)}, Servers: 100})
	if err != nil {
		t.Fatal(err)
	}
	n := ln.Rows
	ones := mat.NewVecDense(n, nil)
	for i := range n {
		ones.SetVec(i, 1)
	}
	for name, m := range map[string]mat.Symmetric{"Q": ln.Noise, "Σ": ln.Cov} {
		var v mat.VecDense
		v.MulVec(m, ones)
		if s := mat.Norm(&v, math.Inf(1)); s > 1e-6*mat.Norm(m, math.Inf(1)) {
			t.Errorf("‖%s·1‖∞ = %.3g", name, s)
		}
	}
	var eig mat.EigenSym
	eig.Factorize(ln.Cov, false)
	if vals := eig.Values(nil); vals[0] < -1e-9*vals[n-1] {
		t.Errorf("Σ has eigenvalue %.3g < 0", vals[0])
	}
	if !(ln.SpectralRadius < 1) || !(ln.BoardMeanSD > 0) {
		t.Errorf("spectral radius %.3g, board mean sd %.3g", ln.SpectralRadius, ln.BoardMeanSD)
	}
}

// all lists the set's level maps, loose then exact.
func (pm *particleMaps) all() []*RefreshMap {
	var all []*RefreshMap
	for _, l := range pm.loose {
		all = append(all, l[:]...)
	}
	return append(all, pm.grid[:]...)
}

// TestParticleLooseExact checks that the particle map's loose maps
// (particleLooseRows) change nothing: runs with them, with them at the
// tolerance 0.01/N (many periods then made again, but those that are not
// decided by a map 10⁶–10⁸ times looser than the exact one) and on the exact
// maps alone give the same tipping period and the same response, float bit
// for float bit. The response averages the board over the run's last nine
// tenths, so one draw in another row changes it. With exponential sizes
// at three (k, λ, N) and Erlang-2 sizes, and with the loose maps used.
// The pins are what the particle map gave before it had loose maps
// (commit 9abdcdd), seeds 1 and 2; Erlang-2's first response moved by two
// units in its last place when the drain of two-phase laws became a
// convolution (phasedrainkernel.go: the same sums in another order).
func TestParticleLooseExact(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		k       int
		lam, x  float64
		N       int
		svc     Service
		periods int
		pins    [2]string
	}{
		{5, 0.9, 3.25, 100, ExpService(), 300, [2]string{"tip 99 response 7ff8000000000001", "tip 264 response 7ff8000000000001"}},
		{3, 0.9, 1.2, 25, ExpService(), 300, [2]string{"tip 0 response 40221dd589fad81c", "tip 0 response 40205007ab640a22"}},
		{10, 0.9, 7.5, 400, ExpService(), 80, [2]string{"tip 0 response 403338795bc5dd9b", "tip 0 response 402a6ccaf0eccd1b"}},
		{5, 0.9, 3.0, 100, ErlangService(2), 20, [2]string{"tip 0 response 40135cb27c248eee", "tip 0 response 4011c223959c6dff"}},
	} {
		r := Refresh{Dispatchers: c.k, Load: c.lam, Period: c.x / ((1 - c.lam) * (1 - c.lam)), Service: c.svc}
		theta := max(3/(1-r.Load), 0.1*r.Period)
		for seed := uint64(1); seed <= 2; seed++ {
			run := func(pm *particleMaps) (string, int) {
				rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
				tip, maps, resp, err := pm.run(r, c.N, rng, c.periods, theta, r.Service.Lift(BoardEmpty()), true, nil)
				if err != nil {
					t.Fatal(err)
				}
				return fmt.Sprintf("tip %d response %x", tip, math.Float64bits(resp)), maps
			}
			want, exactMaps := run(&particleMaps{exactOnly: true})
			if pin := c.pins[seed-1]; want != pin {
				t.Errorf("k = %d, λ = %v, N = %d, %v, seed %d: on the exact maps %s, before the loose maps %s", c.k, c.lam, c.N, c.svc, seed, want, pin)
			}
			for _, tol := range []float64{0, 0.01 / float64(c.N)} {
				pm := &particleMaps{looseTol: tol}
				got, maps := run(pm)
				if got != want {
					t.Errorf("k = %d, λ = %v, N = %d, %v, seed %d, loose tolerance %v: %s, on the exact maps %s", c.k, c.lam, c.N, c.svc, seed, tol, got, want)
				}
				var loose int
				for _, l := range pm.loose {
					for _, m := range l {
						if m != nil {
							loose++
						}
					}
				}
				// Every period applies a loose map; those made again also
				// the exact one.
				if again := maps - exactMaps; loose == 0 || again < 0 || again >= c.periods {
					t.Errorf("k = %d, N = %d, %v, seed %d, loose tolerance %v: %d loose maps made, %d of %d periods made again", c.k, c.N, c.svc, seed, tol, loose, again, c.periods)
				}
			}
		}
	}
}

// TestParticleLooseMargin measures, on the boards of particle runs, the
// largest distance between the normalised distribution functions of the
// loose map (at the tolerance particleLooseTol picks) and the exact one,
// and checks it against particleMargin, which particleLooseRows relies on.
// The distance is 0.11–0.17 of the loose tolerance here; the margin is
// 3 times the two tolerances' sum, 18 times the largest distance.
func TestParticleLooseMargin(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		k      int
		lam, x float64
		N      int
		svc    Service
	}{
		{5, 0.9, 3.3, 100, ExpService()},
		{3, 0.9, 1.2, 25, ExpService()},
		{10, 0.9, 7.5, 400, ExpService()},
		{5, 0.95, 3.3, 1600, ExpService()},
		{5, 0.9, 3.0, 100, ErlangService(2)},
	} {
		r := Refresh{Dispatchers: c.k, Load: c.lam, Period: c.x / ((1 - c.lam) * (1 - c.lam)), Service: c.svc}
		em, err := NewRefreshMap(r)
		if err != nil {
			t.Fatal(err)
		}
		em.boardOnly = true
		rng := rand.New(rand.NewPCG(1, 2))
		x := c.svc.Lift(BoardEmpty())
		var worst, ratio float64
		for range 60 {
			tl, _, ok := particleLooseTol(c.N, len(x))
			if !ok {
				t.Fatalf("k = %d, N = %d: no loose map for a board of %d rows", c.k, c.N, len(x))
			}
			lr := r
			lr.Tol = tl
			lm, err := NewRefreshMap(lr)
			if err != nil {
				t.Fatal(err)
			}
			lm.boardOnly = true
			re, err := em.Apply(nil, x)
			if err != nil {
				t.Fatal(err)
			}
			rl, err := lm.Apply(nil, x)
			if err != nil {
				t.Fatal(err)
			}
			ce, cl := particleCDF(re.Next, nil), particleCDF(rl.Next, nil)
			var d float64
			for v := range max(len(ce), len(cl)) {
				ge, gl := 1.0, 1.0
				if v < len(ce) {
					ge = ce[v] / ce[len(ce)-1]
				}
				if v < len(cl) {
					gl = cl[v] / cl[len(cl)-1]
				}
				d = max(d, math.Abs(ge-gl))
			}
			if eps := particleMargin(tl, em.set.Tol, len(rl.Next)); d > eps {
				t.Errorf("k = %d, λ = %v, N = %d, %v: distance %.3g above the margin %.3g (loose tolerance %.g)", c.k, c.lam, c.N, c.svc, d, eps, tl)
			}
			worst, ratio = max(worst, d), max(ratio, d/tl)
			x, _ = particleStep(re.Next, c.N, rng, nil)
		}
		t.Logf("k = %d, λ = %v, N = %d, %v: largest distance %.3g, %.3f of the loose tolerance", c.k, c.lam, c.N, c.svc, worst, ratio)
	}
}

// TestFiniteEdgeProgress: FiniteEdgeSettings.Progress is called once per
// probe, with the probes done counting 1, 2, …, the fewest still to come
// never rising and 0 after the last (the bisections' count is exact once
// the scan ends), and a probe's most periods Replications × Refreshes;
// the result is the same without it. Short runs (N = 14, 3 runs of 50
// refreshes: under a second).
func TestFiniteEdgeProgress(t *testing.T) {
	t.Parallel()
	s := FiniteEdgeSettings{Dispatchers: 5, Load: 0.8, Servers: 14, Replications: 3, Refreshes: 50, Seed: 7, Workers: 2, ModelScaled: 3.1631964844955442}
	plain, err := FiniteEdge(s)
	if err != nil {
		t.Fatal(err)
	}
	var got []FiniteEdgeProgress
	s.Progress = func(p FiniteEdgeProgress) { got = append(got, p) }
	r, err := FiniteEdge(s)
	if err != nil {
		t.Fatal(err)
	}
	r.Runtime, plain.Runtime = 0, 0
	if a, b := fmt.Sprintf("%+v", r), fmt.Sprintf("%+v", plain); a != b { // NaN fields: not DeepEqual
		t.Errorf("with Progress %s, without %s", a, b)
	}
	if len(got) != len(r.Points) || len(got) == 0 {
		t.Fatalf("%d reports for %d probes", len(got), len(r.Points))
	}
	for i, p := range got {
		if p.Done != i+1 || p.ProbePeriods != 150 || p.Left < 0 || (i > 0 && p.Left > got[i-1].Left) {
			t.Errorf("report %d: %+v (before: %+v); want Done %d, ProbePeriods 150, Left ≥ 0 and not rising", i, p, got[max(i-1, 0)], i+1)
		}
	}
	if last := got[len(got)-1]; last.Left != 0 {
		t.Errorf("last report %+v: want Left 0", last)
	}
}
