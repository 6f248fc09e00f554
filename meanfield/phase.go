package meanfield

import (
	"fmt"
	"math"
	"strconv"
)

// ServiceKind names a phase-type job-size family of the refresh map.
type ServiceKind int

// Service families. All have mean 1 (time is in mean service times).
const (
	// ServiceExp: exponential sizes, one phase of rate 1 (package doc, §2).
	ServiceExp ServiceKind = iota
	// ServiceH2: two-phase hyperexponential with balanced means and squared
	// coefficient of variation C ≥ 1 (package doc, §2, as herd sim draws it):
	// phase 1 with probability p = (1 + sqrt((C−1)/(C+1)))/2 and rate 2p,
	// phase 2 with probability 1 − p and rate 2(1 − p).
	ServiceH2
	// ServiceErlang: Erlang-K, K phases in series of rate K each (squared
	// coefficient of variation 1/K; K → ∞ approaches det).
	ServiceErlang
)

// Ranges of the Service parameters: h2's squared coefficient of
// variation C in [1, MaxServiceSCV], Erlang's phases K in
// [1, MaxServicePhases].
const (
	MaxServiceSCV    = 1e4
	MaxServicePhases = 64
)

// Service is the job-size distribution of the refresh map, a phase-type
// law PH(α, S): a job starts in phase i with probability α_i, moves from
// phase i to phase j at rate S_ij and completes from phase i at rate s_i.
// The zero value is exponential service, the map of the package doc, §2.
//
// # The state with phase-type service
//
// The board still shows queue lengths only, so the water-level fill of
// the package doc, §2, is unchanged; but a server's future depends on the
// phase of the job in service, so the state the map carries from refresh to
// refresh is the joint law x of (queue length q, phase of the job in service)
// at the refresh, laid out as
//
//	x[0] = P(q = 0),  x[1 + (q−1)·P + i] = P(q, phase i)  (q ≥ 1, 0 ≤ i < P),
//
// with P = Phases() phases. With one phase (exponential, Erlang-1) the
// state is the board itself. Lift turns a board into a state with every
// job in service freshly started (package doc, §2: for jobs present at the
// start, sizes are drawn fresh); Board gives a state's board (its
// queue-length marginal).
type Service struct {
	// Kind is ServiceExp, ServiceH2 or ServiceErlang.
	Kind ServiceKind
	// SCV is C for ServiceH2, in [1, 1e4]; ignored otherwise.
	SCV float64
	// Phases is K for ServiceErlang, in [1, 64]; ignored otherwise.
	Phases int
}

// ExpService, H2Service and ErlangService build the three families.
func ExpService() Service { return Service{} }

// H2Service returns the balanced-means hyperexponential with squared
// coefficient of variation c.
func H2Service(c float64) Service { return Service{Kind: ServiceH2, SCV: c} }

// ErlangService returns Erlang-k sizes with mean 1.
func ErlangService(k int) Service { return Service{Kind: ServiceErlang, Phases: k} }

// Validate reports a parameter out of range, naming it.
func (s Service) Validate() error {
	switch s.Kind {
	case ServiceExp:
		return nil
	case ServiceH2:
		if !(s.SCV >= 1 && s.SCV <= MaxServiceSCV) {
			return fmt.Errorf("meanfield: Service h2 SCV = %v outside [1, %g]", s.SCV, MaxServiceSCV)
		}
		return nil
	case ServiceErlang:
		if s.Phases < 1 || s.Phases > MaxServicePhases {
			return fmt.Errorf("meanfield: Service erlang Phases = %d outside [1, %d]", s.Phases, MaxServicePhases)
		}
		return nil
	}
	return fmt.Errorf("meanfield: Service Kind = %d, want ServiceExp, ServiceH2 or ServiceErlang", int(s.Kind))
}

// String returns the family as herd's --sizes flag writes it: exp, h2:C or
// erlang:K.
func (s Service) String() string {
	switch s.Kind {
	case ServiceExp:
		return "exp"
	case ServiceH2:
		return "h2:" + strconv.FormatFloat(s.SCV, 'g', -1, 64)
	case ServiceErlang:
		return "erlang:" + strconv.Itoa(s.Phases)
	}
	return fmt.Sprintf("service(%d)", int(s.Kind))
}

// SecondMoment returns E[S²]: 2 (exp), 1 + C (h2), 1 + 1/K (Erlang-K).
func (s Service) SecondMoment() float64 {
	switch s.Kind {
	case ServiceH2:
		return 1 + s.SCV
	case ServiceErlang:
		return 1 + 1/float64(s.Phases)
	}
	return 2
}

// PhaseCount returns P, the number of phases of the job in service.
func (s Service) PhaseCount() int {
	switch s.Kind {
	case ServiceH2:
		return 2
	case ServiceErlang:
		return s.Phases
	}
	return 1
}

// phaseType is the PH(α, S) representation of a Service.
type phaseType struct {
	n     int         // phases
	alpha []float64   // start law
	exit  []float64   // completion rate s_i
	out   []float64   // total rate out of phase i: Σ_j S_ij + s_i
	moves []phaseMove // S_ij, i ≠ j, nonzero only
	max   float64     // max_i out_i
}

// phaseMove is one phase change i → j at rate.
type phaseMove struct {
	from, to int
	rate     float64
}

// phaseType returns the representation; s must be valid.
func (s Service) phaseType() phaseType {
	var ph phaseType
	switch s.Kind {
	case ServiceH2:
		p := (1 + math.Sqrt((s.SCV-1)/(s.SCV+1))) / 2
		ph.alpha = []float64{p, 1 - p}
		ph.exit = []float64{2 * p, 2 * (1 - p)}
	case ServiceErlang:
		K := s.Phases
		ph.alpha = make([]float64, K)
		ph.alpha[0] = 1
		ph.exit = make([]float64, K)
		ph.exit[K-1] = float64(K)
		for i := 0; i+1 < K; i++ {
			ph.moves = append(ph.moves, phaseMove{i, i + 1, float64(K)})
		}
	default:
		ph.alpha = []float64{1}
		ph.exit = []float64{1}
	}
	ph.n = len(ph.alpha)
	ph.out = append([]float64(nil), ph.exit...)
	for _, mv := range ph.moves {
		ph.out[mv.from] += mv.rate
	}
	for _, o := range ph.out {
		ph.max = max(ph.max, o)
	}
	return ph
}

// stateLen returns the length of a state with queue levels 0 … levels−1.
func stateLen(levels, phases int) int {
	if levels <= 1 {
		return 1
	}
	return 1 + (levels-1)*phases
}

// stateLevels returns the number of queue levels a state of length n
// covers (a partial last level counts).
func stateLevels(n, phases int) int {
	if n <= 1 {
		return 1
	}
	return 1 + (n-1+phases-1)/phases
}

// Lift returns the state of board p with every job in service freshly
// started: x[0] = p_0, x(b, i) = p_b·α_i. With one phase it is a copy of p.
func (s Service) Lift(p []float64) []float64 {
	ph := s.phaseType()
	if len(p) == 0 {
		return nil
	}
	x := make([]float64, stateLen(len(p), ph.n))
	x[0] = p[0]
	for b := 1; b < len(p); b++ {
		for i, a := range ph.alpha {
			x[1+(b-1)*ph.n+i] = p[b] * a
		}
	}
	return x
}

// Board returns the board (queue-length marginal) of the state x.
func (s Service) Board(x []float64) []float64 {
	P := s.PhaseCount()
	if len(x) == 0 {
		return nil
	}
	p := make([]float64, stateLevels(len(x), P))
	p[0] = x[0]
	for i := 1; i < len(x); i++ {
		p[1+(i-1)/P] += x[i]
	}
	return p
}

// rescaleState is rescaleBoard for states: level q moves to round(q·to/from)
// with its phase law; a level that lands on 0 loses its phase.
func (s Service) rescaleState(x []float64, from, to float64) []float64 {
	P := s.PhaseCount()
	if P == 1 {
		return rescaleBoard(x, from, to)
	}
	f := to / from
	levels := stateLevels(len(x), P)
	top := int(math.Round(float64(levels-1) * f))
	y := make([]float64, stateLen(top+1, P))
	var sum float64
	y[0] = x[0]
	sum += x[0]
	for i := 1; i < len(x); i++ {
		q, ph := 1+(i-1)/P, (i-1)%P
		nq := int(math.Round(float64(q) * f))
		if nq == 0 {
			y[0] += x[i]
		} else {
			y[1+(nq-1)*P+ph] += x[i]
		}
		sum += x[i]
	}
	for i := range y {
		y[i] /= sum
	}
	return y
}

// QueueScale is the factor by which the balanced-state queue scale
// BalancedQueueScale/(1 − λ) (and the edge's early herd exit) is widened
// for this service law: max(1, C), C = E[S²] − 1 the squared coefficient
// of variation of the sizes (1 for exp, C for h2:C, 1 for Erlang). A herd
// stores a backlog of order T whatever the sizes, while a balanced queue
// near the edge grows in proportion to C, as the edge itself does
// (issue 17's table: the balanced response at 1.01·T_edge times (1 − λ)
// is 0.93, 1.66, 3.14 at k = 3 for C = 1, 2, 4, and 1.35, 2.55, 4.75 at
// k = 10). The Pollaczek–Khinchine factor E[S²]/2 = (1 + C)/2 used before
// grows more slowly and let the balanced branch of h2:10 at k = 3,
// λ = 0.9 cross the threshold (board mean 66.0 at T(1−λ)² = 9.61, the
// threshold 66) and be taken for a herd. It is a classification threshold,
// not a bound; SeparableScaled says where it separates the two states.
func (s Service) QueueScale() float64 {
	return max(1, s.SecondMoment()-1)
}

// herdMinBacklog is the smallest board mean of a herd as a fraction of
// T (package doc, §4: a herd's board mean is 0.3–0.8·T near the edge).
const herdMinBacklog = 0.3

// SeparableScaled is the T(1−λ)² above which the board mean cannot take
// a herd for a balanced state: a herd's board mean is at least
// herdMinBacklog·T = 0.3·T, and a state counts as balanced up to
// BalancedQueueScale·q/(1 − λ) (q = max(1, C), see QueueScale), so from
// T = BalancedQueueScale·q/(0.3(1 − λ)) up, i.e. T(1−λ)² = 4q(1 − λ), no
// herd passes. Below it a short-period herd can (h2:10, k = 3, λ = 0.9:
// at T(1−λ)² = 0.9 the empty board ends in a fixed point with board mean
// 42.2 = 0.47·T, response 44.9), which is why Edge's footing starts no
// lower (EdgeFootingFor). It is 0.4 for exp at λ = 0.9, 4 for h2:10.
func SeparableScaled(load float64, s Service) float64 {
	return BalancedQueueScale * s.QueueScale() * (1 - load) / herdMinBacklog
}

// stateMean is the board mean of the state x of P phases a level (a
// board when P = 1; x need not be normalised), as RefreshMap.Apply
// computes it for its input (RefreshResult.BoardMean): the same sums in
// the same order, so the same bits.
func stateMean(x []float64, P int) float64 {
	var total float64
	for _, v := range x {
		total += v
	}
	if len(x) == 0 || !(total > 0) {
		return math.NaN()
	}
	var mean float64
	if P == 1 {
		for b, v := range x {
			mean += float64(b) * (v / total)
		}
		return mean
	}
	for b := 1; 1+(b-1)*P < len(x); b++ {
		var pb float64
		for i := 0; i < P && 1+(b-1)*P+i < len(x); i++ {
			pb += x[1+(b-1)*P+i] / total
		}
		mean += float64(b) * pb
	}
	return mean
}

// balancedMeanFor is balancedMean with the threshold widened by
// s.QueueScale().
func balancedMeanFor(mean, load float64, s Service) bool {
	return mean*(1-load) <= BalancedQueueScale*s.QueueScale()
}
