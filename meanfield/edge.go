package meanfield

import (
	"fmt"
	"math"
)

// Crossing kinds of EdgeResult.Crossing.
const (
	// CrossingBorder: a border collision (nonsmooth fold): the stable node,
	// with T just before a window end, reaches the window boundary.
	CrossingBorder = "border"
	// CrossingFlip: a smooth loss with an eigenvalue through −1.
	CrossingFlip = "flip"
	// CrossingFold: a smooth loss with an eigenvalue through +1.
	CrossingFold = "fold"
	// CrossingNone: no edge down to MinScaled.
	CrossingNone = "none"
)

// Defaults of EdgeSettings.
const (
	DefaultEdgeRelTol     = 1e-4
	DefaultEdgeMinScaled  = 0.02
	DefaultEdgeBranchFrom = 8
	DefaultEdgeHerdMaps   = 40
)

// EdgeSettings controls Edge. The zero value of each optional field means
// its default.
type EdgeSettings struct {
	// Dispatchers is k, in [1, 256].
	Dispatchers int
	// Load is λ, in (0, 1).
	Load float64
	// RelTol is the relative precision of the edge in T, in [1e-8, 0.1].
	// Zero means 1e-4.
	RelTol float64
	// MinScaled is the lowest T(1−λ)² searched, in (0, BranchFrom). Zero
	// means 0.02.
	MinScaled float64
	// BranchFrom is the T(1−λ)² from which the balanced branch is followed
	// down, in (MinScaled, 1000]. Zero means 8.
	BranchFrom float64
	// HerdMaps bounds the maps spent on the herd attractor below the edge
	// (EdgeResult.Herd), at least 0. Zero means 40; a negative value skips
	// it.
	HerdMaps int
	// ScanBelow is the number of protocol probes below a lost branch, each
	// a further 0.5% lower in T, looking for balanced branches locked in
	// other windows. Zero means 4; a negative value means none.
	ScanBelow int
	// Service is the job-size law (zero value: exponential); the start
	// boards are lifted with fresh phases (Service.Lift).
	Service Service
}

// Validate reports the first setting out of range, naming the field.
func (s EdgeSettings) Validate() error {
	d := s.withDefaults()
	switch {
	case s.Dispatchers < 1 || s.Dispatchers > maxRefreshDispatchers:
		return fmt.Errorf("meanfield: EdgeSettings.Dispatchers = %d outside [1, %d]", s.Dispatchers, maxRefreshDispatchers)
	case !(s.Load > 0 && s.Load < 1):
		return fmt.Errorf("meanfield: EdgeSettings.Load = %v outside (0, 1)", s.Load)
	case s.RelTol != 0 && !(s.RelTol >= 1e-8 && s.RelTol <= 0.1):
		return fmt.Errorf("meanfield: EdgeSettings.RelTol = %v outside [1e-8, 0.1] (0 means %g)", s.RelTol, DefaultEdgeRelTol)
	case s.BranchFrom != 0 && !(s.BranchFrom > 0 && s.BranchFrom <= 1000):
		return fmt.Errorf("meanfield: EdgeSettings.BranchFrom = %v outside (0, 1000] (0 means %g)", s.BranchFrom, float64(DefaultEdgeBranchFrom))
	case s.MinScaled != 0 && !(s.MinScaled > 0 && s.MinScaled < d.BranchFrom):
		return fmt.Errorf("meanfield: EdgeSettings.MinScaled = %v outside (0, BranchFrom = %g) (0 means %g)", s.MinScaled, d.BranchFrom, DefaultEdgeMinScaled)
	case !(d.MinScaled < d.BranchFrom):
		return fmt.Errorf("meanfield: EdgeSettings.BranchFrom = %v not above MinScaled = %v", d.BranchFrom, d.MinScaled)
	case d.BranchFrom/((1-s.Load)*(1-s.Load)) > maxRefreshPeriod:
		return fmt.Errorf("meanfield: EdgeSettings.BranchFrom = %v gives T = %.3g above %g", d.BranchFrom, d.BranchFrom/((1-s.Load)*(1-s.Load)), maxRefreshPeriod)
	}
	return s.Service.Validate()
}

func (s EdgeSettings) withDefaults() EdgeSettings {
	if s.RelTol == 0 {
		s.RelTol = DefaultEdgeRelTol
	}
	if s.MinScaled == 0 {
		s.MinScaled = DefaultEdgeMinScaled
	}
	if s.BranchFrom == 0 {
		s.BranchFrom = DefaultEdgeBranchFrom
	}
	if s.HerdMaps == 0 {
		s.HerdMaps = DefaultEdgeHerdMaps
	}
	if s.ScanBelow == 0 {
		s.ScanBelow = 4
	}
	return s
}

// EdgeResult is the edge of the balanced state for one (k, λ).
type EdgeResult struct {
	// Found is false when a balanced state persists down to MinScaled.
	Found bool
	// Refresh is the protocol edge T_edge, Scaled = T_edge(1−λ)².
	Refresh, Scaled float64
	// BranchRefresh and BranchScaled: where the balanced branch followed
	// down from BranchFrom is lost.
	BranchRefresh, BranchScaled float64
	// Crossing is CrossingBorder, CrossingFlip, CrossingFold or
	// CrossingNone, the kind of loss of the branch that ends at the
	// protocol edge.
	Crossing string
	// NodeRadius is the spectral radius of the stable node at (just above)
	// the edge.
	NodeRadius float64
	// SaddleEigenvalue is the leading eigenvalue of the map's piece beyond
	// the border, at the collision point: the unstable partner's leading
	// eigenvalue in the limit T → T_edge. NaN if not found (or not real).
	SaddleEigenvalue float64
	// Herd is the attractor reached just below the edge from the empty
	// board (possibly Unconverged within HerdMaps maps).
	Herd Attractor
	// Maps counts refresh-map applications in all.
	Maps int
	// Probes counts protocol evaluations (cold iterations from the low
	// boards) and Steps the warm continuation steps.
	Probes, Steps int
}

// Internal tolerances of Edge.
const (
	edgeFPTol     = 1e-9  // L1 tolerance of a fixed point
	edgeMaxIter   = 3000  // maps per iteration run
	edgeHerdScale = 2.4   // early herd exit: (1−λ)·mean above this …
	edgeHerdRun   = 3     // … for this many consecutive maps
	edgeMaxStep   = 0.1   // largest relative continuation step
	edgeScanStep  = 0.005 // relative spacing of the scan below a lost branch
	edgeHerdTol   = 1e-4  // L1 tolerance of the herd attractor (herds drift slowly)
)

// edgeRun is the state of one Edge computation.
type edgeRun struct {
	s     EdgeSettings
	k     int
	lam   float64
	scale float64 // (1−λ)²
	res   *EdgeResult
}

// verdict is the outcome of one iteration run.
type verdict int

const (
	vBalanced verdict = iota
	vHerd
	vOther
)

// run iterates the map at period T from start until a fixed point or
// orbit, or an early herd exit: (1−λ)·mean above edgeHerdScale for
// edgeHerdRun consecutive maps.
func (e *edgeRun) run(T float64, start []float64) (verdict, Attractor, error) {
	m, err := NewRefreshMap(Refresh{Dispatchers: e.k, Load: e.lam, Period: T, Service: e.s.Service})
	if err != nil {
		return vOther, Attractor{}, err
	}
	high := 0
	stop := func(r RefreshResult) bool {
		if r.BoardMean*(1-e.lam) > edgeHerdScale*e.s.Service.queueScale() {
			high++
		} else {
			high = 0
		}
		return high >= edgeHerdRun
	}
	att, err := findAttractor(m, start, AttractorSettings{MaxIter: edgeMaxIter, Tol: edgeFPTol, MaxPeriod: DefaultAttractorMaxPeriod}, stop)
	e.res.Maps += att.Iterations
	switch {
	case att.Balanced:
		return vBalanced, att, nil
	case high >= edgeHerdRun || (att.Kind != Unconverged && !balancedMeanFor(att.BoardMean, e.lam, e.s.Service)):
		return vHerd, att, nil
	}
	if err != nil && att.Iterations < edgeMaxIter {
		return vOther, att, err
	}
	return vOther, att, nil
}

// protocol evaluates the protocol of model.md §2 at T: iterate from the
// empty board, all servers at 1 and all at 3, in that order, stopping at
// the first that converges to a balanced fixed point. With all false, only
// the empty board is tried. It returns the verdict and the last attractor
// (the balanced one, or the empty board's).
func (e *edgeRun) protocol(T float64, all bool) (bool, Attractor, error) {
	e.res.Probes++
	var first Attractor
	for i, start := range [][]float64{BoardEmpty(), BoardBalanced(1), BoardBalanced(3)} {
		v, att, err := e.run(T, e.s.Service.Lift(start))
		if err != nil {
			return false, att, err
		}
		if i == 0 {
			first = att
		}
		if v == vBalanced {
			return true, att, nil
		}
		if !all {
			break
		}
	}
	return false, first, nil
}

// branchPoint is a balanced fixed point at period T.
type branchPoint struct {
	T   float64
	att Attractor
}

// gap returns the distance from T to the end of its cut window, W(1−φ),
// when T lies in the second half of the window, else NaN.
func (b branchPoint) gap() float64 {
	if b.att.CutPhase > 0.5 {
		return b.att.KinkDistance
	}
	return math.NaN()
}

// branch is the outcome of following a balanced branch down in T.
type branch struct {
	ok     branchPoint // the lowest point reached
	prev   []branchPoint
	lost   bool    // false: reached Tmin
	tLost  float64 // the highest T below ok.T where the warm iteration failed
	lostAt Attractor
}

// follow follows the balanced fixed point at (T, board) down in T by
// natural-parameter continuation with the map's own iteration as the
// corrector (warm start from the last fixed point): steps of up to 10% in
// T, halved after a failure, until the bracket [tLost, ok.T] is narrower
// than RelTol/2 relative. Along a locked branch T sits at a distance
// g = W(1 − φ) before its window's end with g → 0 as T falls to the border
// collision; while the last two points share their cut window, the next
// trial is placed just above the secant root of g(T) (regula falsi on the
// kink distance), so a border collision is bracketed in a few steps.
func (e *edgeRun) follow(T float64, att Attractor, tMin float64) (branch, error) {
	br := branch{ok: branchPoint{T, att}}
	step := edgeMaxStep
	tLost := math.NaN()
	for {
		cur := br.ok
		var tn float64
		if !math.IsNaN(tLost) {
			tn = cur.T - (cur.T-tLost)/2
		} else {
			tn = cur.T * (1 - step)
		}
		// Secant on the gap of the last two points of the same window.
		if n := len(br.prev); n > 0 {
			pp := br.prev[n-1]
			g1, g0 := cur.gap(), pp.gap()
			if pp.att.Window == cur.att.Window && g1 < g0 && g1 >= 0 {
				ts := cur.T - g1*(pp.T-cur.T)/(g0-g1)
				margin := 0.25 * e.s.RelTol * cur.T
				lo := tn
				if !math.IsNaN(tLost) {
					lo = tLost
				}
				if ts+margin < cur.T && ts+margin > lo {
					tn = ts + max(margin, 0.1*(cur.T-ts))
					if cur.T-ts < 4*margin {
						tn = ts + margin
					}
				}
			}
		}
		if tn <= tMin {
			tn = tMin
		}
		e.res.Steps++
		v, a, err := e.run(tn, predict(br.prev, cur, tn))
		if err != nil {
			return br, err
		}
		if v == vBalanced {
			br.prev = append(br.prev, cur)
			br.ok = branchPoint{tn, a}
			if tn == tMin {
				return br, nil
			}
			if math.IsNaN(tLost) {
				step = min(1.5*step, edgeMaxStep)
			}
		} else {
			tLost = tn
			br.lostAt = a
		}
		if !math.IsNaN(tLost) && br.ok.T-tLost <= e.s.RelTol*br.ok.T/2 {
			br.lost, br.tLost = true, tLost
			return br, nil
		}
	}
}

// Edge computes the edge of the balanced state of the refresh map for k
// dispatchers at load λ (model.md §2):
//
//   - Refresh is the protocol edge: the lowest T at which the map, iterated
//     from a low board (empty; all servers at 1; all at 3), converges to a
//     balanced fixed point, to relative precision RelTol. Read: the lowest
//     T of the balanced range that reaches up to BranchFrom. At very short
//     periods (T(1−λ)² ≲ 0.1) the board is nearly live and a small-queue
//     state returns; it is a different regime and is not searched.
//   - BranchRefresh is where the balanced fixed point followed down from
//     T(1−λ)² = BranchFrom is lost.
//
// Method. (1) The protocol at T = BranchFrom/(1−λ)² gives a balanced fixed
// point. (2) It is followed down by continuation (see follow): the map's
// iteration from the last fixed point, secant steps on the distance g from
// T to the end of its window, until the loss is bracketed to RelTol/2. At
// a border collision g → 0 at the loss; otherwise the leading eigenvalue
// there says flip (−1) or fold (+1). (3) The protocol (cold starts) is
// evaluated at the point just below the loss and at ScanBelow points 0.5%
// apart below it (empty board only for these): a balanced result there is
// a branch locked in another window, which is followed down in turn. (4)
// When none is found, the protocol is confirmed at the lowest fixed point
// (if it is not reached from the low boards, the protocol predicate is
// bisected between it and the probe that found its branch). Each iteration
// run stops at a fixed point, a periodic orbit, or as soon as the board
// mean exceeds 2.4/(1−λ) for 3 maps in a row (a herd: model.md §2).
//
// The node's spectral radius comes from Arnoldi at the last fixed point;
// the saddle's leading eigenvalue from Arnoldi at the same board with T
// moved just past its window's end (the other piece of the map); the herd
// from FindAttractor (L1 tolerance 1e-4, HerdMaps maps) continuing the
// empty board's run just below the edge.
//
// When no balanced state exists at BranchFrom, Edge returns an error
// wrapping ErrNotConverged.
func Edge(s EdgeSettings) (EdgeResult, error) {
	if err := s.Validate(); err != nil {
		return EdgeResult{}, err
	}
	s = s.withDefaults()
	res := EdgeResult{Crossing: CrossingNone, NodeRadius: math.NaN(), SaddleEigenvalue: math.NaN(),
		Refresh: math.NaN(), Scaled: math.NaN(), BranchRefresh: math.NaN(), BranchScaled: math.NaN()}
	res.Herd.SpectralRadius = math.NaN()
	e := &edgeRun{s: s, k: s.Dispatchers, lam: s.Load, scale: (1 - s.Load) * (1 - s.Load), res: &res}
	t0, tMin := s.BranchFrom/e.scale, s.MinScaled/e.scale

	ok, top, err := e.protocol(t0, true)
	if err != nil {
		return res, err
	}
	if !ok {
		return res, fmt.Errorf("meanfield: edge: no balanced fixed point at T(1−λ)² = BranchFrom = %g (board mean %.4g, %s): %w",
			s.BranchFrom, top.BoardMean, top.Kind, ErrNotConverged)
	}
	br, err := e.follow(t0, top, tMin)
	if err != nil {
		return res, err
	}
	if !br.lost {
		return res, nil
	}
	res.BranchRefresh = br.ok.T
	res.BranchScaled = br.ok.T * e.scale
	tHi := t0 // a T at which the protocol reached the current branch
	var below Attractor
	belowT := br.tLost
	for {
		// Scan below the lost branch for a balanced branch in another window.
		var found bool
		var fAtt Attractor
		var fT float64
		for j := 0; j <= max(s.ScanBelow, 0); j++ {
			T := br.tLost * (1 - edgeScanStep*float64(j))
			if T < tMin {
				break
			}
			ok, a, err := e.protocol(T, j == 0)
			if err != nil {
				return res, err
			}
			if j == 0 {
				below, belowT = a, T
			}
			if ok {
				found, fAtt, fT = true, a, T
				break
			}
		}
		if !found {
			break
		}
		nb, err := e.follow(fT, fAtt, tMin)
		if err != nil {
			return res, err
		}
		if !nb.lost {
			return res, nil
		}
		br, tHi = nb, fT
	}
	// Confirm the protocol at the branch's lowest point.
	edgeT := br.ok.T
	node := br.ok.att
	if edgeT < tHi {
		ok, a, err := e.protocol(edgeT, true)
		if err != nil {
			return res, err
		}
		if !ok {
			// The low boards do not reach this branch at its end: bisect the
			// protocol predicate between edgeT (false) and tHi (true).
			lo, hi := edgeT, tHi
			hiAtt := Attractor{}
			for hi-lo > s.RelTol*hi/2 {
				mid := lo + (hi-lo)/2
				ok, a, err := e.protocol(mid, true)
				if err != nil {
					return res, err
				}
				if ok {
					hi, hiAtt = mid, a
				} else {
					lo, below, belowT = mid, a, mid
				}
			}
			edgeT = hi
			if hiAtt.Board != nil {
				node = hiAtt
			}
		} else {
			node = a
		}
	}
	res.Found = true
	res.Refresh, res.Scaled = edgeT, edgeT*e.scale

	// The node's spectrum and the crossing.
	m, err := NewRefreshMap(Refresh{Dispatchers: e.k, Load: e.lam, Period: edgeT, Service: e.s.Service})
	if err != nil {
		return res, err
	}
	ev, maps, err := leadingEigenvalues(m, node.Board, 3)
	res.Maps += maps
	if err != nil {
		return res, err
	}
	res.NodeRadius = absMax(ev)
	g := branchPoint{edgeT, node}.gap()
	w := float64(e.k) / e.lam
	switch {
	case g < 0.05*w:
		res.Crossing = CrossingBorder
	case res.NodeRadius > 0.95 && real(ev[0]) < 0:
		res.Crossing = CrossingFlip
	default:
		res.Crossing = CrossingFold
	}
	if res.Crossing == CrossingBorder {
		// T just past the window end at the node's board: the other piece.
		ms, err := NewRefreshMap(Refresh{Dispatchers: e.k, Load: e.lam, Period: edgeT + 2*g, Service: e.s.Service})
		if err != nil {
			return res, err
		}
		ev, maps, err := leadingEigenvalues(ms, node.Board, 3)
		res.Maps += maps
		if err == nil && len(ev) > 0 && imag(ev[0]) == 0 {
			res.SaddleEigenvalue = real(ev[0])
		}
	}

	// The herd just below the edge, continuing the empty board's run.
	if s.HerdMaps > 0 && below.Board != nil {
		mh, err := NewRefreshMap(Refresh{Dispatchers: e.k, Load: e.lam, Period: belowT, Service: e.s.Service})
		if err != nil {
			return res, err
		}
		h, _ := findAttractor(mh, below.Board, AttractorSettings{MaxIter: s.HerdMaps, Tol: edgeHerdTol, MaxPeriod: DefaultAttractorMaxPeriod}, nil)
		res.Maps += h.Iterations
		res.Herd = h
	}
	return res, nil
}

func absMax(ev []complex128) float64 {
	r := 0.0
	for _, e := range ev {
		r = max(r, math.Hypot(real(e), imag(e)))
	}
	return r
}

// predict is the secant predictor of the continuation: the fixed point at
// tn extrapolated linearly from the last two points of the branch when
// they share their cut window (the map is smooth there), else the last
// fixed point. Negative entries are clipped and the board renormalised.
func predict(prev []branchPoint, cur branchPoint, tn float64) []float64 {
	if len(prev) == 0 {
		return cur.att.Board
	}
	pp := prev[len(prev)-1]
	if pp.att.Window != cur.att.Window || pp.T == cur.T {
		return cur.att.Board
	}
	f := (tn - cur.T) / (cur.T - pp.T)
	n := max(len(cur.att.Board), len(pp.att.Board))
	out := make([]float64, n)
	var sum float64
	for i := range out {
		var a, b float64
		if i < len(cur.att.Board) {
			a = cur.att.Board[i]
		}
		if i < len(pp.att.Board) {
			b = pp.att.Board[i]
		}
		x := a + f*(a-b)
		if x < 0 {
			x = 0
		}
		out[i] = x
		sum += x
	}
	if !(sum > 0) {
		return cur.att.Board
	}
	for i := range out {
		out[i] /= sum
	}
	return out
}
