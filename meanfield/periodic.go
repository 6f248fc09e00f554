package meanfield

import (
	"errors"
	"fmt"
	"math"
	"time"

	"herd/fixedpoint"
)

// UpdatePolicy is the dispatching policy of the periodic-update model: the
// map's own switch, which ClassicModel sets from a fleet.Policy (best of D,
// least loaded) for the command line's herd model and herd plan.
type UpdatePolicy int

const (
	// UpdateSQD is best of d (SQ(d)): d servers sampled uniformly with
	// replacement, the smallest board value, ties at random.
	// PeriodicUpdate.D = 1 is random dispatching.
	UpdateSQD UpdatePolicy = iota
	// UpdateRandom is random dispatching, the same as UpdateSQD with D = 1.
	UpdateRandom
	// UpdateLeastLoaded is least loaded: a server with the smallest board
	// value, ties at random.
	UpdateLeastLoaded
)

var updatePolicyNames = [...]string{"sqd", "random", "ll"}

// String returns "sqd", "random" or "ll".
func (p UpdatePolicy) String() string {
	if p < 0 || int(p) >= len(updatePolicyNames) {
		return fmt.Sprintf("UpdatePolicy(%d)", int(p))
	}
	return updatePolicyNames[p]
}

// Defaults of PeriodicUpdate.
const (
	DefaultPeriodicTol       = 1e-10
	DefaultPeriodicMaxIter   = 100_000
	DefaultPeriodicMaxIterLL = 3_000
	DefaultPeriodicMaxPeriod = 8
	DefaultPeriodicMinClass  = 1e-12
	DefaultPeriodicMaxRows   = 1 << 21

	maxPeriodicPeriod = 1e4
	// periodicPMFEps cuts the tails of Poisson vectors (renormalised, so
	// no mass is lost by it).
	periodicPMFEps = 1e-18
	// periodicRowEps is the mass each end of a uniformised vector may
	// drop per step (counted in the truncation).
	periodicRowEps = 1e-18
	// periodicFreeEps bounds the probability that a queue treated as
	// unable to empty would in fact empty (counted in the truncation).
	periodicFreeEps = 1e-16
)

// PeriodicUpdate holds the settings of the periodic-update model of
// Mitzenmacher (2000): infinitely many servers, one dispatcher without a
// tally, and a board of queue lengths refreshed every Period mean service
// times (package doc, §3). The zero value of every optional field means its
// default.
//
// # The map
//
// The state is the board p_b, the share of servers whose board reads
// b = 0, 1, 2, …, with F(b) = Σ_{c≤b} p_c and G(b) = 1 − F(b − 1) =
// Σ_{c≥b} p_c. During a period the board does not change, so the policy
// picks a server of board class b with a fixed probability a_b, and a
// server of class b receives Poisson arrivals at rate λa_b/p_b for the
// whole period while it serves at rate 1:
//
//   - SQ(d), d servers sampled uniformly with replacement (as in
//     Mitzenmacher 2000 and the supermarket literature), the smallest
//     board value, ties at random:
//     a_b = G(b)^d − G(b+1)^d, so λa_b/p_b = λ Σ_{j<d} G(b)^j G(b+1)^(d−1−j)
//     (computed in that form, without cancellation);
//   - random (d = 1): a_b = p_b, rate λ for every class;
//   - least loaded: a_b = 1 for the smallest occupied b, 0 elsewhere.
//
// Each class is therefore an M/M/1-type birth–death chain over [0, T]
// started at queue b, and the next board is the mixture Σ_b p_b P_b(q at T).
// Observables: the board mean Σ b p_b, the time-averaged mean queue
// (1/T)∫₀ᵀ Σ_b p_b E_b[q(t)] dt, and by Little's law the mean time in
// system, QueueMean/λ (averaged over the cycle of the attractor).
//
// # Method
//
// Each class's transient is computed exactly up to stated truncations:
//
//   - Rate 0 (the classes least loaded does not use): pure death,
//     P(q = b − j) = Pois(t; j) for j < b and P(q = 0) = P(Pois(t) ≥ b),
//     and ∫₀ᵀ E[q] dt = Σ_{j<b} (b − j) P(Pois(T) > j), since
//     ∫₀ᵀ Pois(t; j) dt = P(Pois(T) > j).
//   - Otherwise uniformisation at rate ν = Λ + 1 (Jensen 1953; Grassmann
//     1977): P(q at t) = Σ_n Pois(νt; n) vₙ with vₙ the n-th step of the
//     jump chain (up with probability Λ/ν, down or, at 0, stay with
//     probability 1/ν), and ∫₀ᵀ E[q(t)] dt = (1/ν) Σ_n mₙ P(Pois(νT) > n),
//     mₙ = Σ_q q vₙ(q). The Poisson weights are cut at tails below 10⁻¹⁸
//     and renormalised (Fox & Glynn 1988; see poissonPMF).
//   - Rows that cannot empty: a queue at q > 0 reaches 0 within time τ
//     with probability at most min(P(Pois(τ) ≥ q), Λ^(−q)) (it needs q
//     service completions, and a walk with up rate Λ > 1 ever hits 0 with
//     probability Λ^(−q), gambler's ruin). Once all but 10⁻¹⁶ of a class's
//     mass sits on such rows, the rest of the period is the free process
//     q + Pois(Λτ) − Pois(τ), a convolution, with mean q + (Λ − 1)t. This
//     keeps least loaded's heavily fed class (Λ = λ/p_b, up to 10¹²) cheap:
//     a few hundred uniformisation steps, then one convolution.
//
// Random dispatching (d = 1) gives every class the same rate, so the whole
// board is propagated as one chain.
//
// # Truncation
//
// Classes with p_b < MinClass are dropped before the map (their mass, and
// for least loaded the possibility that a vanishing class takes all the
// arrivals, is lost) and the board renormalised; the uniformised vectors
// drop at most 10⁻¹⁸ of mass per step at each end; the free-process bound
// adds at most 10⁻¹⁶ per class. PeriodicStep.Truncation reports the sum of
// the dropped class mass and the mass lost in the transients; the next
// board sums to 1 minus the latter.
//
// # References
//
//   - M. Mitzenmacher, How useful is old information?, IEEE Transactions on
//     Parallel and Distributed Systems 11(1):6–20, 2000 (the periodic
//     update model, §3).
//   - A. Jensen, Markoff chains as an aid in the study of Markoff
//     processes, Skand. Aktuarietidskr. 36, 1953 (uniformisation).
//   - W. K. Grassmann, Transient solutions in Markovian queueing systems,
//     Comput. Oper. Res. 4(1):47–53, 1977.
//   - B. L. Fox, P. W. Glynn, Computing Poisson probabilities, Comm. ACM
//     31(4):440–445, 1988.
type PeriodicUpdate struct {
	// Policy is the dispatching policy; the zero value is UpdateSQD.
	Policy UpdatePolicy
	// D is the number of servers sampled by UpdateSQD, in [1, 64]; zero
	// means 2. It is ignored by the other policies.
	D int
	// Load is the per-server arrival rate λ, in (0, 1).
	Load float64
	// Period is the board refresh period T in mean service times, in
	// (0, 1e4].
	Period float64

	// Tol: Solve has converged when ‖p_n − p_{n−P}‖₁ ≤ Tol. In
	// [1e-14, 1e-3]; zero means DefaultPeriodicTol.
	Tol float64
	// MaxIter bounds the map applications of Solve; ≥ 0, zero means
	// DefaultPeriodicMaxIter (sqd, random) or DefaultPeriodicMaxIterLL
	// (least loaded, whose attractor is irregular at long periods and
	// whose maps are costly there).
	MaxIter int
	// MaxPeriod is the longest cycle Solve detects, in [0, 64]; zero
	// means DefaultPeriodicMaxPeriod.
	MaxPeriod int
	// MinClass: board classes with p_b < MinClass are dropped. In
	// [1e-300, 1e-3]; zero means DefaultPeriodicMinClass for least loaded
	// (a vanishing class would receive every arrival) and 1e-300 (only
	// underflowed classes) for sqd and random, where a small class gets
	// a bounded rate and dropping it would only bias the mean.
	MinClass float64
	// MaxRows bounds the length of a board; a map needing more fails.
	// At least 16; zero means DefaultPeriodicMaxRows.
	MaxRows int
	// Stop, when not nil, is polled after every map that closes no fixed
	// point or cycle and, within a map, before each board class; once it
	// reports true Solve (or Apply) ends with an error wrapping
	// ErrStopped (herd's Ctrl-C). It is not a setting of the
	// computation: a run it does not stop has the same result.
	Stop func() bool `json:"-"`
	// Mapped, when not nil, is called after each map of Solve with the
	// maps made so far and the most Solve will make (MaxIter), for a
	// heartbeat; like Stop, it is not a setting of the computation.
	Mapped func(maps, maxMaps int) `json:"-"`
}

// Validate reports the first setting out of range, naming the field.
func (u PeriodicUpdate) Validate() error {
	switch {
	case u.Policy < UpdateSQD || u.Policy > UpdateLeastLoaded:
		return fmt.Errorf("meanfield: PeriodicUpdate.Policy = %d outside {sqd, random, ll}", int(u.Policy))
	case u.D < 0 || u.D > 64:
		return fmt.Errorf("meanfield: PeriodicUpdate.D = %d outside [1, 64] (0 means 2)", u.D)
	case !(u.Load > 0 && u.Load < 1):
		return fmt.Errorf("meanfield: PeriodicUpdate.Load = %v outside (0, 1)", u.Load)
	case !(u.Period > 0 && u.Period <= maxPeriodicPeriod):
		return fmt.Errorf("meanfield: PeriodicUpdate.Period = %v outside (0, %g]", u.Period, maxPeriodicPeriod)
	case u.Tol != 0 && !(u.Tol >= 1e-14 && u.Tol <= 1e-3):
		return fmt.Errorf("meanfield: PeriodicUpdate.Tol = %v outside [1e-14, 1e-3] (0 means %g)", u.Tol, DefaultPeriodicTol)
	case u.MaxIter < 0:
		return fmt.Errorf("meanfield: PeriodicUpdate.MaxIter = %d outside [0, ∞) (0 means %d)", u.MaxIter, DefaultPeriodicMaxIter)
	case u.MaxPeriod < 0 || u.MaxPeriod > 64:
		return fmt.Errorf("meanfield: PeriodicUpdate.MaxPeriod = %d outside [0, 64] (0 means %d)", u.MaxPeriod, DefaultPeriodicMaxPeriod)
	case u.MinClass != 0 && !(u.MinClass >= 1e-300 && u.MinClass <= 1e-3):
		return fmt.Errorf("meanfield: PeriodicUpdate.MinClass = %v outside [1e-300, 1e-3] (0 means %g)", u.MinClass, DefaultPeriodicMinClass)
	case u.MaxRows != 0 && u.MaxRows < 16:
		return fmt.Errorf("meanfield: PeriodicUpdate.MaxRows = %d outside [16, ∞) (0 means %d)", u.MaxRows, DefaultPeriodicMaxRows)
	}
	return nil
}

func (u PeriodicUpdate) withDefaults() PeriodicUpdate {
	if u.Policy == UpdateRandom {
		u.Policy, u.D = UpdateSQD, 1
	}
	if u.D == 0 {
		u.D = 2
	}
	if u.Tol == 0 {
		u.Tol = DefaultPeriodicTol
	}
	if u.MaxIter == 0 {
		u.MaxIter = DefaultPeriodicMaxIter
		if u.Policy == UpdateLeastLoaded {
			u.MaxIter = DefaultPeriodicMaxIterLL
		}
	}
	if u.MaxPeriod == 0 {
		u.MaxPeriod = DefaultPeriodicMaxPeriod
	}
	if u.MinClass == 0 {
		u.MinClass = 1e-300
		if u.Policy == UpdateLeastLoaded {
			u.MinClass = DefaultPeriodicMinClass
		}
	}
	if u.MaxRows == 0 {
		u.MaxRows = DefaultPeriodicMaxRows
	}
	return u
}

// ErrPeriodicRows is returned, wrapped, when a board would need more rows
// than PeriodicUpdate.MaxRows.
var ErrPeriodicRows = errors.New("meanfield: periodic-update board needs more rows than MaxRows")

// PeriodicStep is one application of the periodic-update map.
type PeriodicStep struct {
	// Next is the queue-length distribution at the end of the period,
	// the next board. It sums to 1 minus the mass lost in the transients.
	Next []float64
	// BoardMean is Σ b p_b of the (normalised, truncated) input board.
	BoardMean float64
	// QueueMean is the time-averaged mean queue (1/T)∫₀ᵀ E[q(t)] dt.
	QueueMean float64
	// Response is QueueMean/λ, the mean time in system by Little's law.
	Response float64
	// Classes counts the board classes kept; Dropped is the mass of those
	// dropped (p_b < MinClass).
	Classes int
	Dropped float64
	// Truncation is Dropped plus the mass lost in the transients.
	Truncation float64
	// Steps counts uniformisation steps, a measure of work.
	Steps int
}

// PeriodicMap applies the periodic-update map with a reusable workspace. It
// is not safe for concurrent use.
type PeriodicMap struct {
	set PeriodicUpdate // with defaults

	p, g     []float64 // normalised board, G(b)
	cur, nxt []float64 // uniformisation vectors
	acc      []float64 // uniformisation scratch
	res      []float64 // uniformisation result
	pmf      []float64
	pmf2     []float64
	conv     []float64
	steps    int
}

// NewPeriodicMap validates u and returns a map with an empty workspace.
func NewPeriodicMap(u PeriodicUpdate) (*PeriodicMap, error) {
	if err := u.Validate(); err != nil {
		return nil, err
	}
	return &PeriodicMap{set: u.withDefaults()}, nil
}

// errPeriodicStopped is a map's error when Stop ends it between classes:
// one map at high load and long period takes seconds (sqd:64 at
// λ = 0.999, T = 10⁴: about 4 s).
var errPeriodicStopped = fmt.Errorf("meanfield: periodic update map: %w", ErrStopped)

// stopped reports whether PeriodicUpdate.Stop asks the run to end.
func (m *PeriodicMap) stopped() bool { return m.set.Stop != nil && m.set.Stop() }

// Apply applies the periodic-update map once to p, writing the next board
// into dst's storage (dst may be nil; it must not alias p). It returns an
// error if p is empty, has a negative or non-finite entry or zero mass, or
// the next board would need more than MaxRows rows.
func (m *PeriodicMap) Apply(dst, p []float64) (PeriodicStep, error) {
	var st PeriodicStep
	var sum float64
	for b, x := range p {
		if !(x >= 0) || math.IsInf(x, 1) {
			return st, fmt.Errorf("meanfield: board p_%d = %v is not a probability", b, x)
		}
		sum += x
	}
	if !(sum > 0) || math.IsInf(sum, 1) {
		return st, fmt.Errorf("meanfield: board has total mass %v", sum)
	}
	set := m.set
	lam, T := set.Load, set.Period
	// Normalise, drop small classes, renormalise.
	m.p = append(m.p[:0], p...)
	var kept float64
	for b := range m.p {
		m.p[b] /= sum
		if m.p[b] < set.MinClass {
			st.Dropped += m.p[b]
			m.p[b] = 0
		}
		kept += m.p[b]
	}
	if !(kept > 0) {
		return st, fmt.Errorf("meanfield: board has no class above MinClass = %g", set.MinClass)
	}
	top := len(m.p) - 1
	for m.p[top] == 0 {
		top--
	}
	m.p = m.p[:top+1]
	for b := range m.p {
		m.p[b] /= kept
		if m.p[b] > 0 {
			st.Classes++
		}
		st.BoardMean += float64(b) * m.p[b]
	}
	// G(b) = Σ_{c≥b} p_c, summed from the top; G(top+1) = 0.
	m.g = append(m.g[:0], make([]float64, top+2)...)
	for b := top; b >= 0; b-- {
		m.g[b] = m.g[b+1] + m.p[b]
	}

	next := dst[:0]
	m.steps = 0
	var integral, lost float64
	var err error
	switch {
	case set.Policy == UpdateSQD && set.D == 1:
		// Random: every class has rate λ; propagate the board at once.
		var in, l float64
		next, in, l, err = m.transient(next, 0, m.p, lam, T, 1)
		integral, lost = in, l
	case set.Policy == UpdateSQD:
		d := set.D
		for b, pb := range m.p {
			if pb == 0 {
				continue
			}
			// λ a_b/p_b = λ Σ_{j<d} G(b)^j G(b+1)^(d−1−j).
			gb, gb1 := m.g[b], m.g[b+1]
			var r float64
			for j := 0; j < d; j++ {
				r += ipow(gb, j) * ipow(gb1, d-1-j)
			}
			if m.stopped() {
				err = errPeriodicStopped
				break
			}
			var in, l float64
			next, in, l, err = m.transient(next, b, []float64{1}, lam*r, T, pb)
			if err != nil {
				break
			}
			integral += pb * in
			lost += pb * l
		}
	default: // least loaded
		bmin := 0
		for m.p[bmin] == 0 {
			bmin++
		}
		for b, pb := range m.p {
			if pb == 0 {
				continue
			}
			rate := 0.0
			if b == bmin {
				rate = lam / pb // a_b = 1
			}
			if m.stopped() {
				err = errPeriodicStopped
				break
			}
			var in, l float64
			next, in, l, err = m.transient(next, b, []float64{1}, rate, T, pb)
			if err != nil {
				break
			}
			integral += pb * in
			lost += pb * l
		}
	}
	st.Steps = m.steps
	if err != nil {
		return st, err
	}
	for len(next) > 1 && next[len(next)-1] == 0 {
		next = next[:len(next)-1]
	}
	st.Next = next
	st.QueueMean = integral / T
	st.Response = st.QueueMean / lam
	st.Truncation = st.Dropped + max(lost, 0)
	return st, nil
}

// addScaled adds w·v (v's entry i at row lo+i) into out, growing it, and
// returns out. Rows beyond maxRows fail.
func addScaled(out []float64, lo int, v []float64, w float64, maxRows int) ([]float64, error) {
	hi := lo + len(v)
	if hi > maxRows {
		return out, fmt.Errorf("meanfield: periodic update: board needs %d rows (MaxRows %d): %w", hi, maxRows, ErrPeriodicRows)
	}
	for len(out) < hi {
		out = append(out, 0)
	}
	for i, x := range v {
		out[lo+i] += w * x
	}
	return out, nil
}

// transient evolves the distribution x (x[i] = P(q = lo + i)) of a
// birth–death queue with arrival rate rate and service rate 1 over [0, T],
// adds w times the result into out and returns out, ∫₀ᵀ E[q(t)] dt and
// the mass lost to truncation (per unit of x's mass).
func (m *PeriodicMap) transient(out []float64, lo int, x []float64, rate, T, w float64) ([]float64, float64, float64, error) {
	maxRows := m.set.MaxRows
	var mass0 float64
	for _, v := range x {
		mass0 += v
	}
	if rate == 0 {
		return m.drain(out, lo, x, T, w)
	}
	// The current distribution, on rows [lo, lo+len(cur)).
	m.cur = append(m.cur[:0], x...)
	var integral, lost float64
	t := 0.0
	for {
		tau := T - t
		q0 := freeRow(rate, tau, &m.pmf)
		var below float64
		for i, v := range m.cur {
			if lo+i < q0 {
				below += v
			}
		}
		if below <= periodicFreeEps {
			// The free process q + Pois(rate·τ) − Pois(τ) for the rest.
			var mean, mass float64
			for i, v := range m.cur {
				mean += float64(lo+i) * v
				mass += v
			}
			integral += tau*mean + mass*(rate-1)*tau*tau/2
			alo, a := poissonPMF(m.pmf, rate*tau, periodicPMFEps)
			m.pmf = a
			slo, s := poissonPMF(m.pmf2, tau, periodicPMFEps)
			m.pmf2 = s
			// conv = cur ⊗ Pois(rate·τ), rows lo+alo … .
			m.conv = convolve(m.conv, m.cur, a)
			clo := lo + alo
			// Subtract Pois(τ): row r − j for j = slo + k.
			shi := slo + len(s) - 1
			nlo := clo - shi
			m.nxt = append(m.nxt[:0], make([]float64, len(m.conv)+len(s)-1)...)
			for i, v := range m.conv {
				if v == 0 {
					continue
				}
				for k, sk := range s {
					// row clo + i − (slo + k) = nlo + i + (len(s)−1−k)
					m.nxt[i+len(s)-1-k] += v * sk
				}
			}
			// Rows below 0 would mean the queue emptied: lost (bounded
			// by periodicFreeEps).
			start := 0
			for nlo+start < 0 {
				lost += m.nxt[start]
				start++
			}
			var err error
			out, err = addScaled(out, nlo+start, m.nxt[start:], w, maxRows)
			if err != nil {
				return out, 0, 0, err
			}
			lost += below
			var mass1 float64
			for _, v := range m.nxt[start:] {
				mass1 += v
			}
			lost = max(lost, mass0-mass1)
			return out, integral, lost / mass0, nil
		}
		delta := tau
		nu := rate + 1
		// A heavily fed class is uniformised in segments of at most
		// max(256, 16·q0) steps, after which it usually sits above q0.
		if maxSeg := float64(max(256, 16*q0)); nu*tau > maxSeg {
			delta = maxSeg / nu
		}
		var in float64
		lo, in = m.uniformise(lo, rate, delta)
		integral += in
		t += delta
		if delta == tau {
			var mass1 float64
			for _, v := range m.cur {
				mass1 += v
			}
			var err error
			out, err = addScaled(out, lo, m.cur, w, maxRows)
			if err != nil {
				return out, 0, 0, err
			}
			return out, integral, max(0, mass0-mass1) / mass0, nil
		}
	}
}

// freeRow returns q0 such that a queue at q ≥ q0 reaches 0 within time τ
// with probability below periodicFreeEps: min of the first row past the
// Pois(τ) support (it needs that many services) and, for rate > 1, the
// first q with rate^(−q) < periodicFreeEps (gambler's ruin).
func freeRow(rate, tau float64, buf *[]float64) int {
	slo, s := poissonPMF(*buf, tau, periodicFreeEps)
	*buf = s
	q0 := slo + len(s)
	if rate > 1 {
		q0 = min(q0, int(math.Ceil(-math.Log(periodicFreeEps)/math.Log(rate))))
	}
	return q0
}

// convolve returns a ⊗ b in dst's storage.
func convolve(dst, a, b []float64) []float64 {
	dst = append(dst[:0], make([]float64, len(a)+len(b)-1)...)
	for i, x := range a {
		if x == 0 {
			continue
		}
		row := dst[i : i+len(b)]
		for j, y := range b {
			row[j] += x * y
		}
	}
	return dst
}

// uniformise evolves m.cur (rows [lo, lo+len)) over time δ at arrival rate
// rate and service rate 1 by uniformisation at ν = rate + 1, replacing
// m.cur by the distribution at δ. It returns the new lo and
// ∫₀^δ E[q(t)] dt = (1/ν) Σ_n mₙ P(Pois(νδ) > n).
func (m *PeriodicMap) uniformise(lo int, rate, delta float64) (int, float64) {
	nu := rate + 1
	up, dn := rate/nu, 1/nu
	nlo, wts := poissonPMF(m.pmf, nu*delta, periodicPMFEps)
	m.pmf = wts
	nhi := nlo + len(wts) - 1
	// Work on absolute rows [base, base+size).
	base := max(0, lo-nhi)
	size := lo + len(m.cur) + nhi + 1 - base
	v := append(m.nxt[:0], make([]float64, size)...)
	copy(v[lo-base:], m.cur)
	nv := append(m.acc[:0], make([]float64, size)...)
	m.res = append(m.res[:0], make([]float64, size)...)
	res := m.res
	vlo, vhi := lo-base, lo-base+len(m.cur)-1
	var integral, cum float64
	for n := 0; ; n++ {
		var wn float64
		if n >= nlo {
			wn = wts[n-nlo]
		}
		cum += wn
		var mn float64
		for i := vlo; i <= vhi; i++ {
			mn += float64(base+i) * v[i]
			if wn != 0 {
				res[i] += wn * v[i]
			}
		}
		integral += mn * max(0, 1-cum) // P(Pois(νδ) > n) = 1 − P(≤ n)
		if n == nhi {
			break
		}
		// One jump: up with probability up, down (or stay at 0) with dn.
		nlo2, nhi2 := max(0, vlo+base-1)-base, vhi+1
		for i := nlo2; i <= nhi2; i++ {
			var x float64
			if i-1 >= vlo && i-1 <= vhi {
				x += up * v[i-1]
			}
			if i+1 >= vlo && i+1 <= vhi {
				x += dn * v[i+1]
			}
			if base+i == 0 && i >= vlo && i <= vhi {
				x += dn * v[i] // stay at 0
			}
			nv[i] = x
		}
		v, nv = nv, v
		vlo, vhi = nlo2, nhi2
		// Trim ends holding at most periodicRowEps.
		var drop float64
		for vlo < vhi && drop+v[vlo] <= periodicRowEps {
			drop += v[vlo]
			v[vlo] = 0
			vlo++
		}
		drop = 0
		for vhi > vlo && drop+v[vhi] <= periodicRowEps {
			drop += v[vhi]
			v[vhi] = 0
			vhi--
		}
		m.steps++
	}
	m.nxt, m.acc = v, nv
	// The result: trim zero ends.
	a, b := 0, size-1
	for a < b && res[a] == 0 {
		a++
	}
	for b > a && res[b] == 0 {
		b--
	}
	m.cur = append(m.cur[:0], res[a:b+1]...)
	return base + a, integral / nu
}

// drain is transient for rate 0: the pure-death queue q(t) = max(q − N(t), 0)
// with N a Poisson process of rate 1.
func (m *PeriodicMap) drain(out []float64, lo int, x []float64, T, w float64) ([]float64, float64, float64, error) {
	slo, s := poissonPMF(m.pmf, T, periodicPMFEps)
	m.pmf = s
	shi := slo + len(s) - 1
	// tail[k] = P(N > slo + k) = P(N ≥ slo + k + 1).
	m.pmf2 = append(m.pmf2[:0], make([]float64, len(s))...)
	tail := m.pmf2
	acc := 0.0
	for k := len(s) - 1; k >= 0; k-- {
		tail[k] = acc
		acc += s[k]
	}
	var integral float64
	for i, xq := range x {
		if xq == 0 {
			continue
		}
		q := lo + i
		// ∫₀ᵀ E[(q − N(t))⁺] dt = Σ_{j<q} (q − j) P(N(T) > j); P(N > j) = 1
		// for j < slo.
		mlo := min(q, slo)
		in := float64(mlo)*float64(q) - float64(mlo)*float64(mlo-1)/2
		for j := slo; j < min(q, shi+1); j++ {
			in += float64(q-j) * tail[j-slo]
		}
		integral += xq * in
		// P(q − N = q − j) = Pois(T; j) for j < q; the rest at 0.
		var p0 float64
		if q <= slo {
			p0 = 1
		} else {
			// Rows q − j for j in [slo, min(q − 1, shi)].
			jmax := min(q-1, shi)
			var err error
			out, err = growTo(out, q-slo+1, m.set.MaxRows)
			if err != nil {
				return out, 0, 0, err
			}
			for j := slo; j <= jmax; j++ {
				out[q-j] += w * xq * s[j-slo]
			}
			if q-1 >= shi {
				p0 = 0
			} else {
				p0 = tail[q-1-slo] // P(N > q−1) = P(N ≥ q)
			}
		}
		if p0 > 0 {
			var err error
			out, err = growTo(out, 1, m.set.MaxRows)
			if err != nil {
				return out, 0, 0, err
			}
			out[0] += w * xq * p0
		}
	}
	return out, integral, 0, nil
}

// growTo extends out with zeros to at least n rows.
func growTo(out []float64, n, maxRows int) ([]float64, error) {
	if n > maxRows {
		return out, fmt.Errorf("meanfield: periodic update: board needs %d rows (MaxRows %d): %w", n, maxRows, ErrPeriodicRows)
	}
	for len(out) < n {
		out = append(out, 0)
	}
	return out, nil
}

// PeriodicResult is the attractor of the periodic-update map reached by
// PeriodicUpdate.Solve.
type PeriodicResult struct {
	// Status is FixedPoint, Periodic, or Unconverged when MaxIter maps
	// passed first.
	Status Status
	// Period is 1 for a fixed point, P ≥ 2 for a cycle of P boards, 0 when
	// unconverged.
	Period int
	// Board is the fixed point or the first board of the cycle (for an
	// unconverged run, the last board reached).
	Board []float64
	// BoardMean, QueueMean and Response are averaged over the P maps of
	// the cycle: the board mean, the time-averaged mean queue over a
	// period, and the mean time in system QueueMean/λ (Little's law).
	// When unconverged they are averaged over the second half of the run
	// (maps MaxIter/2 + 1 … MaxIter): the long-run average of an
	// irregular attractor, such as least loaded's at long periods.
	BoardMean, QueueMean, Response float64
	// Averaged is the number of maps averaged: P, or the second half of
	// an unconverged run.
	Averaged int
	// ResponseSE is, for an unconverged run, the standard error of
	// Response by 20 batch means over the averaged maps (the maps of an
	// irregular attractor are correlated, batches less so); 0 for a
	// cycle.
	ResponseSE float64
	// Batches is the number of batch means behind ResponseSE (0 when it
	// is 0).
	Batches int
	// Stats.Maps counts map applications.
	Stats
	// Residual is the last ‖p_n − p_{n−P}‖₁ (P = 1 when unconverged).
	Residual float64
	// Contraction is the ratio of the last two residuals ‖p_n − p_{n−1}‖₁
	// of a fixed point, an estimate ρ of the map's contraction there; the
	// distance to the fixed point is about Residual·ρ/(1 − ρ), which for a
	// short Period (ρ close to 1) exceeds Residual. NaN for a cycle.
	Contraction float64
	// Truncation is the largest PeriodicStep.Truncation seen.
	Truncation float64
}

// Solve iterates the periodic-update map from the board start (nil means
// the empty board {1}) until the boards close up on a fixed point or a
// cycle of period P ≤ MaxPeriod, ‖p_{n+1} − p_{n+1−P}‖₁ ≤ Tol: the smallest
// such P, with the cycle's boards at least √Tol apart for P ≥ 2 so that a
// fixed point approached with a multiplier near −1 does not pass for a
// 2-cycle (the convention of FindAttractor). The observables are averaged
// over the cycle. Least loaded herds: every arrival of a period goes to the
// emptiest class, which becomes the fullest. At λ = 0.9 its map has a
// stable fixed point up to T ≈ 5 and, beyond, long cycles (period 12 at
// T = 9) or an irregular attractor (T = 10, 20, …; no period up to 200 in
// 3,000 maps); for those Solve ends with ErrNotConverged and reports the
// long-run average with its batch-means standard error.
//
// When MaxIter maps pass first, Solve returns the last state reached
// (Status Unconverged) with an error wrapping ErrNotConverged. Invalid
// settings or boards, and map failures, return other errors.
func (u PeriodicUpdate) Solve(start []float64) (PeriodicResult, error) {
	m, err := NewPeriodicMap(u)
	if err != nil {
		return PeriodicResult{}, err
	}
	t0 := time.Now()
	r, err := m.solve(start)
	r.Runtime = time.Since(t0)
	return r, err
}

// solve is Solve on a prepared map.
func (m *PeriodicMap) solve(start []float64) (PeriodicResult, error) {
	if start == nil {
		start = []float64{1}
	}
	s := m.set
	P := s.MaxPeriod
	o := fixedpoint.NewOrbit(P, append([]float64(nil), start...), l1)
	stats := make([]periodicStat, P+1)
	out := PeriodicResult{Contraction: math.NaN()}
	prevRes := math.NaN()
	half := s.MaxIter / 2
	var tail []PeriodicStep // observables of maps half+1 … MaxIter (Next unset)
	it := fixedpoint.Iteration{Tol: s.Tol, Sep: math.Sqrt(s.Tol)}
	it.Map = func(dst, x []float64) ([]float64, error) {
		n := out.Maps
		st, err := m.Apply(dst, x)
		out.Maps++
		if err != nil {
			return nil, fmt.Errorf("meanfield: periodic update: map %d: %w", n+1, err)
		}
		if s.Mapped != nil {
			s.Mapped(out.Maps, s.MaxIter)
		}
		out.Truncation = max(out.Truncation, st.Truncation)
		stats[n%(P+1)] = periodicStat{st.BoardMean, st.QueueMean}
		if n >= half {
			tail = append(tail, PeriodicStep{BoardMean: st.BoardMean, QueueMean: st.QueueMean, Response: st.Response})
		}
		return st.Next, nil
	}
	it.Visit = func(residual float64) (bool, error) {
		out.Residual = residual
		prevRes = residual
		if m.stopped() {
			return true, fmt.Errorf("meanfield: periodic update: after %d maps: %w", out.Maps, ErrStopped)
		}
		return false, nil
	}
	per, err := it.Run(o, 0, s.MaxIter)
	switch {
	case err != nil:
		return out, err
	case per > 0:
		out.Residual = o.Distance(per)
		if d1 := o.Distance(1); per == 1 && prevRes > 0 {
			out.Contraction = d1 / prevRes
		}
		closeCycle(&out, o, stats, per, s.Load)
		return out, nil
	}
	out.Board = append([]float64(nil), o.Back(0)...)
	averageTail(&out, tail, s.Load)
	return out, fmt.Errorf("meanfield: periodic update: ‖p_n − p_{n−1}‖₁ = %.3g after %d maps: %w", out.Residual, out.Maps, ErrNotConverged)
}

// periodicStat is what Solve keeps of one map.
type periodicStat struct{ board, queue float64 }

// closeCycle fills out with the cycle of period per that the newest board
// p_{n+1} of o closes: its first board and its observables averaged over
// its maps.
func closeCycle(out *PeriodicResult, o *fixedpoint.Orbit, stats []periodicStat, per int, load float64) {
	P, n := o.MaxPeriod(), o.Len()-1
	out.Status = FixedPoint
	if per > 1 {
		out.Status = Periodic
	}
	out.Period = per
	// The cycle is p_{n+2−per}, …, p_{n+1}.
	out.Board = append([]float64(nil), o.Back(per-1)...)
	var bm, qm float64
	for j := 0; j < per; j++ {
		x := stats[(n-j)%(P+1)]
		bm += x.board
		qm += x.queue
	}
	out.BoardMean, out.QueueMean = bm/float64(per), qm/float64(per)
	out.Response = out.QueueMean / load
	out.Averaged = per
}

// averageTail sets out's observables to the averages over the maps of
// tail, with the batch-means standard error of the response.
func averageTail(out *PeriodicResult, tail []PeriodicStep, load float64) {
	out.Averaged = len(tail)
	for _, x := range tail {
		out.BoardMean += x.BoardMean / float64(len(tail))
		out.QueueMean += x.QueueMean / float64(len(tail))
	}
	out.Response = out.QueueMean / load
	if size := len(tail) / periodicBatches; size >= 2 {
		means := fixedpoint.BatchMeans(func(i int) float64 { return tail[i].Response }, periodicBatches, size)
		var grand float64
		for _, m := range means {
			grand += m / periodicBatches
		}
		out.ResponseSE, out.Batches = fixedpoint.BatchSE(means, grand), periodicBatches
	}
}

// periodicBatches is the number of batches of an irregular attractor's
// batch means.
const periodicBatches = 20
