package meanfield

import (
	"errors"
	"fmt"
	"math"

	"herd/fixedpoint/root"
)

// ErrNotConverged is returned, wrapped, when a numerical method in this
// package fails to reach its tolerance; test for it with errors.Is.
var ErrNotConverged = errors.New("meanfield: not converged")

// closedFormLoadErr returns a non-nil error naming the load and its allowed
// range unless 0 < load < 1.
func closedFormLoadErr(load float64) error {
	if !(load > 0 && load < 1) { // also rejects NaN
		return fmt.Errorf("meanfield: load λ = %v outside (0, 1)", load)
	}
	return nil
}

// MM1Response returns the mean time in system of the M/M/1 queue with
// service rate 1 and arrival rate λ = load,
//
//	E[T] = 1/(1 − λ),
//
// which is the per-server mean time in system under random dispatching
// (Kleinrock 1975, Vol. 1, §3.2). It returns an error if load is
// not in (0, 1).
func MM1Response(load float64) (float64, error) {
	if err := closedFormLoadErr(load); err != nil {
		return 0, err
	}
	return 1 / (1 - load), nil
}

// MM1Queue returns the mean number in system of the M/M/1 queue with
// service rate 1 and arrival rate λ = load,
//
//	E[Q] = λ/(1 − λ)
//
// (Kleinrock 1975, Vol. 1, §3.2). It returns an error if load is
// not in (0, 1).
func MM1Queue(load float64) (float64, error) {
	if err := closedFormLoadErr(load); err != nil {
		return 0, err
	}
	return load / (1 - load), nil
}

// SupermarketCutoff is the default truncation level of the supermarket
// fixed point: levels i with s_i < SupermarketCutoff are dropped.
const SupermarketCutoff = 1e-16

// maxSupermarketLevels bounds the length of the slice returned by
// SupermarketTails; only d = 1 with a load very close to 1 can reach it.
const maxSupermarketLevels = 1 << 22

// SupermarketTails returns the fixed point of the supermarket model SQ(d)
// with live information in the limit of infinitely many servers: s[i] is the
// fraction of servers holding at least i jobs,
//
//	s_i = λ^((d^i − 1)/(d − 1)),  s_0 = 1,
//
// the unique fixed point in the space of tails with finite mean of
//
//	ds_i/dt = λ(s_{i−1}^d − s_i^d) − (s_i − s_{i+1}),  i ≥ 1
//
// (Vvedenskaya, Dobrushin & Karpelevich 1996; Mitzenmacher 2001, §3). For d = 1 the exponent is i and s_i = λ^i, the M/M/1 queue.
//
// The exponent e_i = (d^i − 1)/(d − 1) is built in floating point by the
// recurrence e_i = 1 + d·e_{i−1}, so d^i never overflows an integer; the
// sequence is truncated at the last level with s_i ≥ tol (the first dropped
// level has s_{i+1} < tol, and for d ≥ 2 the whole dropped mass is below
// 2·tol^d). tol = 0 means SupermarketCutoff. SupermarketTails returns an
// error if load is not in (0, 1), d < 1, tol is not in [0, 1), or the
// tail would need more than 2²² levels (d = 1 with load near 1).
func SupermarketTails(d int, load, tol float64) ([]float64, error) {
	if err := closedFormLoadErr(load); err != nil {
		return nil, err
	}
	if d < 1 {
		return nil, fmt.Errorf("meanfield: choices d = %d outside [1, ∞)", d)
	}
	if !(tol >= 0 && tol < 1) {
		return nil, fmt.Errorf("meanfield: truncation tol = %v outside [0, 1)", tol)
	}
	if tol == 0 {
		tol = SupermarketCutoff
	}
	if d == 1 {
		// s_i = λ^i ≥ tol for i ≤ log(tol)/log(λ).
		if n := math.Log(tol) / math.Log(load); n > maxSupermarketLevels {
			return nil, fmt.Errorf("meanfield: supermarket tail at λ = %v, d = 1 needs %.3g levels (limit %d); use MM1Response", load, n, maxSupermarketLevels)
		}
	}
	s := []float64{1}
	for e := 1.0; ; e = 1 + float64(d)*e {
		si := math.Pow(load, e) // s_i = λ^{e_i}, e_i = (d^i − 1)/(d − 1)
		if si < tol {
			break
		}
		s = append(s, si)
	}
	return s, nil
}

// SupermarketResponse returns the mean time in system of the supermarket
// model SQ(d) with live information and infinitely many servers at
// per-server load λ,
//
//	E[T] = (1/λ) Σ_{i≥1} s_i,  s_i = λ^((d^i − 1)/(d − 1)),
//
// by Little's law applied to the mean queue Σ_{i≥1} s_i (Mitzenmacher 2001,
// §3; Vvedenskaya, Dobrushin & Karpelevich 1996). The sum stops at the
// first level with s_i < SupermarketCutoff; for d ≥ 2 the dropped mass is
// below 2·10⁻³² relative to E[T]. For d = 1 it returns the M/M/1 value
// 1/(1 − λ) exactly. At λ = 0.9 and d = 2 the value is 2.6136.
//
// SupermarketResponse returns an error if load is not in (0, 1) or d < 1.
func SupermarketResponse(d int, load float64) (float64, error) {
	if err := closedFormLoadErr(load); err != nil {
		return 0, err
	}
	if d < 1 {
		return 0, fmt.Errorf("meanfield: choices d = %d outside [1, ∞)", d)
	}
	if d == 1 {
		return 1 / (1 - load), nil
	}
	var sum float64
	for e := 1.0; ; e = 1 + float64(d)*e {
		si := math.Pow(load, e) // s_i = λ^{e_i}
		if si < SupermarketCutoff {
			break
		}
		sum += si
	}
	return sum / load, nil
}

// GIM1Result is the solution of a GI/M/1 queue with service rate 1.
type GIM1Result struct {
	// Sigma is the root σ in (0, 1) of σ = A*(1 − σ): the probability
	// that an arriving customer finds the server busy, and the
	// parameter of the geometric queue length seen at arrivals.
	Sigma float64
	// Response is the mean time in system 1/(1 − σ), in mean service
	// times.
	Response float64
	// Waiting is the mean time in queue σ/(1 − σ).
	Waiting float64
	// Stats.Maps counts evaluations of the transform A*: bracketing,
	// Brent's method and the two checks of the result. It is 0 when a
	// closed form was used.
	Stats
	// Residual is |A*(1 − σ) − σ| at the returned σ.
	Residual float64
	// RelativeError estimates the relative error of 1 − σ, and so of
	// Response, caused by rounding in the transform: the noise of
	// g(x) = A*(x) + x − 1 divided by x·|g'(x)|, with the slope taken
	// from the secant to x/2 (which underestimates it, by convexity,
	// so the estimate is conservative). It is 0 when a closed form was
	// used.
	RelativeError float64
}

// gim1MaxRelativeError is the largest GIM1Result.RelativeError accepted;
// beyond it the root is reported as not converged.
const gim1MaxRelativeError = 1e-6

// maxGIM1Iterations bounds the transform evaluations of GIM1: up to about
// 1100 halvings to bracket a root near σ = 1 and Brent's method, which needs
// at most about (log2 of the bracket ratio)² steps and usually under 20.
const maxGIM1Iterations = 5000

// GIM1 solves the GI/M/1 queue with service rate 1 whose interarrival times
// have mean 1/λ, λ = load, and Laplace–Stieltjes transform
// lst(s) = A*(s) = E[exp(−sA)], s ≥ 0. The probability σ that an arrival
// finds the server busy is the unique root in (0, 1) of
//
//	σ = A*(1 − σ),
//
// and the time in system is exponential with mean 1/(1 − σ) (Kleinrock
// 1975, Vol. 1, §6.4). The mean waiting time is σ/(1 − σ).
//
// GIM1 solves for x = 1 − σ, the root in (0, 1] of g(x) = A*(x) + x − 1,
// so that a heavily loaded queue (x small) keeps full relative accuracy in
// 1/x. Because A* is convex with A*(0) = 1 and A*'(0) = −1/λ < −1, g is
// convex, vanishes at 0, is negative just above 0 and has g(1) = A*(1) ≥ 0,
// so it has exactly one root in (0, 1]. A bracket is found by halving x from
// 1/2 until g(x) < 0, and the root is then refined to machine precision by
// Brent's method (Brent 1973, Ch. 4, procedure zero), which combines
// bisection with secant and inverse quadratic interpolation and never leaves
// the bracket.
//
// The root is computed to machine precision in x, but A*(x) carries an
// absolute rounding error of order ε = 2⁻⁵², and g'(x) at the root is of
// order 1 − λ, so the relative accuracy of Response is about ε/(1 − λ)²
// (about 10⁻¹³ at λ = 0.99 for the M/M/1 transform). GIM1 estimates it,
// conservatively, in RelativeError and reports ErrNotConverged when the
// estimate exceeds 10⁻⁶, which for the M/M/1 transform happens above about
// λ = 1 − 10⁻⁵. ErlangM1 and DM1 evaluate 1 − A*(x) directly (with expm1),
// keep a relative accuracy of about ε/(1 − λ) and fail only above about
// λ = 1 − 10⁻⁹.
//
// lst must be the transform of a distribution with mean 1/load; GIM1 cannot
// check that. It returns an error if load is not in (0, 1), and an error
// wrapping ErrNotConverged if lst returns a value that is not finite, no
// bracket is found, or Brent's method fails to converge.
func GIM1(lst func(s float64) float64, load float64) (GIM1Result, error) {
	if err := closedFormLoadErr(load); err != nil {
		return GIM1Result{}, err
	}
	return solveGIM1(func(x float64) float64 { return 1 - lst(x) }, 1, load)
}

// solveGIM1 is GIM1 given the complementary transform comp(x) = 1 − A*(x),
// which callers that can should evaluate without cancellation. It solves
// g(x) = x − comp(x) = A*(x) + x − 1 = 0 for x = 1 − σ in (0, 1]. The
// rounding noise of g(x) is taken to be 4ε(floor + x): floor = 1 when comp
// is computed as 1 − A*(x), 0 when it is accurate to a few ulps.
func solveGIM1(comp func(x float64) float64, floor, load float64) (GIM1Result, error) {
	evals := 0
	var bad error
	g := func(x float64) float64 {
		evals++
		c := comp(x)
		if math.IsNaN(c) || math.IsInf(c, 0) {
			if bad == nil {
				bad = fmt.Errorf("meanfield: GI/M/1 transform A*(%v) = %v: %w", x, 1-c, ErrNotConverged)
			}
			return math.NaN()
		}
		return x - c // g(x) = A*(x) − (1 − x)
	}

	// Bracket: g(hi) ≥ 0 > g(lo). g(1) = A*(1) ≥ 0, and g < 0 just above 0.
	hi, ghi := 1.0, g(1)
	lo, glo := 0.5, g(0.5)
	for glo >= 0 && bad == nil {
		hi, ghi = lo, glo
		lo /= 2
		if lo == 0 {
			return GIM1Result{Stats: Stats{Maps: evals}}, fmt.Errorf("meanfield: GI/M/1 at λ = %v: no root of σ = A*(1 − σ) below 1 (lost in rounding, or A* is not a transform with mean 1/λ): %w", load, ErrNotConverged)
		}
		glo = g(lo)
	}
	if bad != nil {
		return GIM1Result{Stats: Stats{Maps: evals}}, bad
	}

	x, ok := root.Brent(g, lo, hi, glo, ghi, maxGIM1Iterations-evals)
	if bad != nil {
		return GIM1Result{Stats: Stats{Maps: evals}}, bad
	}
	if !ok {
		return GIM1Result{Stats: Stats{Maps: evals}}, fmt.Errorf("meanfield: GI/M/1 at λ = %v: Brent's method after %d evaluations: %w", load, evals, ErrNotConverged)
	}
	res := GIM1Result{
		Sigma:    1 - x,
		Response: 1 / x,
		Waiting:  (1 - x) / x,
		Stats:    Stats{Maps: evals},
		Residual: math.Abs(g(x)),
	}
	// Conditioning: δx ≈ noise/|g'(x)|, and |g'(x)| ≥ −g(x/2)/(x/2) by
	// convexity (g(x) = 0), so δx/x ≲ noise/(−2g(x/2)).
	const eps = 0x1p-52
	noise := 4 * eps * (floor + x)
	res.RelativeError = math.Inf(1)
	if gh := g(x / 2); gh < 0 {
		res.RelativeError = noise / (-2 * gh)
	}
	res.Maps = evals
	if bad != nil {
		return res, bad
	}
	if !(res.RelativeError <= gim1MaxRelativeError) {
		return res, fmt.Errorf("meanfield: GI/M/1 at λ = %v: root of σ = A*(1 − σ) lost in rounding (relative error ≈ %.2g): %w", load, res.RelativeError, ErrNotConverged)
	}
	return res, nil
}

// ErlangM1 solves the E_n/M/1 queue with service rate 1 and arrival rate
// λ = load: interarrival times are Erlang with n phases of rate nλ each,
// whose Laplace–Stieltjes transform is
//
//	A*(s) = (nλ/(nλ + s))^n,
//
// evaluated as 1 − A*(s) = −expm1(−n·log1p(s/(nλ))) to stay accurate for
// large n and for λ near 1
// (Kleinrock 1975, Vol. 1, §6.4, where E_r/M/1 is worked out). This is
// round robin over n servers fed by one Poisson stream of total rate nλ:
// each server receives every n-th arrival. For n = 1 it returns the M/M/1
// closed form σ = λ with Stats.Maps 0; for n ≥ 2 it calls GIM1. As n → ∞
// it approaches DM1 from above, with an error of order 1/n.
//
// ErlangM1 returns an error if load is not in (0, 1) or n < 1, and the
// errors of GIM1.
func ErlangM1(n int, load float64) (GIM1Result, error) {
	if err := closedFormLoadErr(load); err != nil {
		return GIM1Result{}, err
	}
	if n < 1 {
		return GIM1Result{}, fmt.Errorf("meanfield: Erlang phases n = %d outside [1, ∞)", n)
	}
	if n == 1 {
		// M/M/1: A*(s) = λ/(λ + s) and σ = λ/(λ + 1 − σ) has the
		// root σ = λ exactly (Kleinrock 1975, Vol. 1, §6.4).
		return GIM1Result{
			Sigma:    load,
			Response: 1 / (1 - load),
			Waiting:  load / (1 - load),
		}, nil
	}
	fn := float64(n)
	rate := fn * load
	comp := func(s float64) float64 {
		return -math.Expm1(-fn * math.Log1p(s/rate)) // 1 − (nλ/(nλ + s))^n
	}
	return solveGIM1(comp, 0, load)
}

// DM1 solves the D/M/1 queue with service rate 1 and arrival rate
// λ = load: interarrival times are all 1/λ, A*(s) = exp(−s/λ), so σ is the
// root in (0, 1) of
//
//	σ = exp(−(1 − σ)/λ)
//
// (Kleinrock 1975, Vol. 1, §6.4, with deterministic interarrivals). It is the n → ∞ limit of
// ErlangM1, i.e. round robin with infinitely many servers. At λ = 0.9 the
// mean time in system is 5.18.
//
// DM1 returns an error if load is not in (0, 1), and the errors of GIM1.
func DM1(load float64) (GIM1Result, error) {
	if err := closedFormLoadErr(load); err != nil {
		return GIM1Result{}, err
	}
	comp := func(s float64) float64 {
		return -math.Expm1(-s / load) // 1 − exp(−s/λ)
	}
	return solveGIM1(comp, 0, load)
}

// Second moments E[S²] of the mean-1 job size families of the simulator,
// for PKResponse.
const (
	// SecondMomentDet is E[S²] for deterministic sizes (M/D/1).
	SecondMomentDet = 1.0
	// SecondMomentExp is E[S²] for exponential sizes (M/M/1).
	SecondMomentExp = 2.0
)

// SecondMomentH2 returns E[S²] = 1 + C for the mean-1 two-phase
// hyperexponential with balanced means and squared coefficient of variation
// C (phase 1 with probability p = (1 + √((C−1)/(C+1)))/2 and mean 1/(2p),
// phase 2 with probability 1 − p and mean 1/(2(1 − p)); then
// E[S²] = 1/(2p(1 − p)) = 1 + C). It returns an error if C < 1.
func SecondMomentH2(c float64) (float64, error) {
	if !(c >= 1) || math.IsInf(c, 1) {
		return 0, fmt.Errorf("meanfield: squared coefficient of variation C = %v outside [1, ∞)", c)
	}
	return 1 + c, nil
}

// SecondMomentPareto returns E[S²] for the mean-1 Pareto distribution with
// shape α > 1: the scale is x_m = (α − 1)/α and
//
//	E[S²] = α x_m²/(α − 2)  for α > 2,
//
// and +Inf for 1 < α ≤ 2, where the variance is infinite; PKResponse then
// returns +Inf, and callers should warn that a finite simulation is biased
// low. It returns an error if α ≤ 1 (the mean is infinite).
func SecondMomentPareto(alpha float64) (float64, error) {
	if !(alpha > 1) || math.IsInf(alpha, 1) {
		return 0, fmt.Errorf("meanfield: Pareto shape α = %v outside (1, ∞)", alpha)
	}
	if alpha <= 2 {
		return math.Inf(1), nil
	}
	xm := (alpha - 1) / alpha
	return alpha * xm * xm / (alpha - 2), nil
}

// PKResponse returns the mean time in system of the M/G/1 queue with
// arrival rate λ = load and mean-1 job sizes with second moment E[S²]
// (secondMoment), by the Pollaczek–Khinchine mean-value formula
//
//	E[T] = 1 + λ E[S²]/(2(1 − λ))
//
// (Kleinrock 1975, Vol. 1, Ch. 5, with mean service time x̄ = 1). It is the
// per-server mean time in system under random dispatching with general
// sizes; with exponential sizes (E[S²] = 2) it equals MM1Response. A
// secondMoment of +Inf gives +Inf. PKResponse returns an error if load is
// not in (0, 1) or secondMoment is below 1 (impossible for a mean-1 size)
// or NaN.
func PKResponse(load, secondMoment float64) (float64, error) {
	if err := closedFormLoadErr(load); err != nil {
		return 0, err
	}
	if !(secondMoment >= 1) {
		return 0, fmt.Errorf("meanfield: size second moment E[S²] = %v outside [1, ∞]", secondMoment)
	}
	return 1 + load*secondMoment/(2*(1-load)), nil
}

// Crossing is a load at which two dispatching policies have the same mean
// time in system.
type Crossing struct {
	// Load is the crossing load λ.
	Load float64
	// Response is the common mean time in system at Load.
	Response float64
	// Stats.Steps counts the bisection steps.
	Stats
}

// Bracket of loads searched by SupermarketRoundRobinCrossing.
const (
	crossingLow  = 0.05
	crossingHigh = 0.95
)

// SupermarketRoundRobinCrossing returns the load λ at which live best of d,
// SupermarketResponse(d, λ), equals round robin over infinitely many
// servers, DM1(λ).Response; for d = 2 it is about 0.52 (Mitzenmacher 2001
// gives the supermarket values; the crossing follows from the two closed
// forms). Below the crossing round robin is better, above it best of d is.
//
// The crossing is found by bisection on [0.05, 0.95] to a width of 10⁻¹²
// in λ. It returns an error if d < 2, and an error wrapping ErrNotConverged
// if the difference does not change sign on that bracket (which happens for
// large d, whose crossing lies below 0.05).
func SupermarketRoundRobinCrossing(d int) (Crossing, error) {
	if d < 2 {
		return Crossing{}, fmt.Errorf("meanfield: choices d = %d outside [2, ∞) for a crossing with round robin", d)
	}
	// h(λ) = E[T_SQ(d)](λ) − E[T_D/M/1](λ): positive where round robin
	// is better.
	h := func(load float64) (float64, error) {
		sq, err := SupermarketResponse(d, load)
		if err != nil {
			return 0, err
		}
		rr, err := DM1(load)
		if err != nil {
			return 0, err
		}
		return sq - rr.Response, nil
	}
	lo, hi := crossingLow, crossingHigh
	hlo, err := h(lo)
	if err != nil {
		return Crossing{}, err
	}
	hhi, err := h(hi)
	if err != nil {
		return Crossing{}, err
	}
	if !(hlo > 0 && hhi < 0) {
		return Crossing{}, fmt.Errorf("meanfield: SQ(%d) and round robin do not cross in [%v, %v]: %w", d, lo, hi, ErrNotConverged)
	}
	iter := 0
	rrBetter := func(load float64) (bool, error) { // false at lo, true at hi
		iter++
		hm, err := h(load)
		return !(hm > 0), err
	}
	lo, hi, err = root.Bisect(rrBetter, lo, hi, root.Midpoint(1e-12, 0))
	if err != nil {
		return Crossing{}, err
	}
	load := 0.5 * (lo + hi)
	rr, err := DM1(load)
	if err != nil {
		return Crossing{}, err
	}
	return Crossing{Load: load, Response: rr.Response, Stats: Stats{Steps: iter}}, nil
}
