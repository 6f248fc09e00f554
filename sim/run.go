package sim

import (
	"context"
	"math"

	"herd/fleet"
)

// BoardStat is one record of the board: at a refresh, or at a sample
// instant when the board is live.
type BoardStat struct {
	Time     float64 // service times
	Mean     float64 // mean board value over all servers
	Min, Max int32   // the spread is Max − Min
}

// Result is one run.
type Result struct {
	// ResponseMean is the mean time in system (waiting + service) of the
	// jobs that arrived in [Warmup, end), in service times.
	ResponseMean float64
	// ResponseP99 is the 99th percentile of the same jobs' times in system
	// when Config.Tail is set (within 0.4%: tail.go), else 0.
	ResponseP99 float64
	Jobs        int64 // jobs measured
	Arrivals    int64 // all jobs simulated, warm-up included
	// BoardMean is the mean board value over the records at or after the
	// warm-up (refreshes, or samples on a live board); Records counts them.
	BoardMean float64
	Records   int
	// ProbesMean is the mean number of servers probed per job (0 for
	// rules that probe nothing: random, rr; N per job for ll, oracle).
	ProbesMean float64
	// End is the simulated time the run reached; Stopped is set when
	// Config.Observe ended it before the horizon.
	End     float64
	Stopped bool
	// Trace holds every board record when Config.KeepTrace is set.
	Trace []BoardStat
}

// runner is the state of one run. One run is single-threaded and
// deterministic given its seed.
type runner struct {
	ctx       context.Context // checked every checkEvery units of work; nil: never
	cancelled bool
	work      int64 // arrivals + probes + servers read at records, so far
	checkAt   int64 // work at which the context is checked next
	chunk     int64 // most arrivals between two checks: checkEvery/(1 + probes a job may make)
	invRate   float64
	arrive    func(stop float64, limit int64) // the rule's arrival loop (fast.go)
	c         Config
	n, k      int
	rng       *rng
	last      []float64 // each server's last departure (Lindley)
	// How queue lengths are known, by rule: live least loaded keeps them
	// exactly (q, below); the live probing rules (sqd, left, firstdiff on a
	// live board) keep each server's departure times in a ring; every
	// other rule only needs them at board records, and logs just the jobs
	// that will still be in the system at the next record.
	rings []ring
	log   []event
	board []int32

	doms     []domain
	domOf    []int // dispatcher → domain
	waters   []water
	waterOf  []int     // dispatcher → water group
	tallies  [][]int32 // tally group → per-server sends since refresh
	tallyOf  []int     // dispatcher → tally group (−1: none)
	tallyInc int32     // what one send adds to a tally: 1, or k when scaled
	rr       []int32   // round-robin counters, relative to the domain
	credit   []int     // FirstDiff probe allowance per dispatcher
	fdCap    int
	live     bool

	// live least loaded
	q       []int32
	pos     []int32
	lists   [][][]int32 // domain → queue length → servers
	minQ    []int32
	departs eventHeap
	// oracle
	idle      [][]int32
	busy      []eventHeap
	oracleNew bool // the last oracle pick was idle
	// distinct-probe marks for sqd with D > 16
	marks probeMarks

	lp     loop
	probes int64
	sizes  fleet.Sizes
	h2p    float64 // H2 phase-1 probability
	h2m1   float64 // H2 phase means
	h2m2   float64
	parXm  float64
	parInv float64
}

// Run simulates one run of c with the given seed. The result depends only
// on c and seed.
func Run(c Config, seed uint64) (Result, error) {
	if err := c.Validate(); err != nil {
		return Result{}, err
	}
	c = c.withDefaults()
	r := newRunner(c, seed)
	return r.run(), nil
}

func newRunner(c Config, seed uint64) *runner {
	n, k := c.Servers, c.Dispatchers
	r := &runner{
		c: c, n: n, k: k,
		rng:   newRNG(seed),
		last:  make([]float64, n),
		board: make([]int32, n),
		live:  c.Refresh == 0,
		sizes: c.Sizes,
	}
	r.setupSizes()
	// Domains: one for all, or one block per dispatcher (sizes differ by at most one).
	ndom := 1
	if c.Partitioned {
		ndom = k
	}
	r.setupDomains(ndom)
	if r.live && (c.Policy.Kind == fleet.BestOfD || c.Policy.Kind == fleet.Left || c.Policy.Kind == fleet.FirstDiff) {
		r.rings = make([]ring, n)
	}
	switch c.Policy.Kind {
	case fleet.RoundRobin:
		r.rr = make([]int32, k)
		for d := range r.rr {
			r.rr[d] = int32(r.rng.IntN(r.doms[r.domOf[d]].size()))
		}
	case fleet.LeastLoaded:
		if r.live {
			r.setupLiveLeastLoaded(ndom)
		} else {
			r.setupWaters(ndom)
		}
	case fleet.BestOfD, fleet.Left, fleet.FirstDiff:
		r.setupTallies(ndom)
	case fleet.Oracle:
		r.idle = make([][]int32, ndom)
		r.busy = make([]eventHeap, ndom)
		for i := range r.doms {
			dom := &r.doms[i]
			for s := dom.lo; s < dom.hi; s++ {
				r.idle[i] = append(r.idle[i], s)
			}
		}
	}
	return r
}

// setupSizes sets the size law's constants: H2's phase probability and
// means, Pareto's scale and exponent.
func (r *runner) setupSizes() {
	switch r.c.Sizes.Kind {
	case fleet.H2:
		r.h2p, r.h2m1, r.h2m2 = r.c.Sizes.H2Phases()
	case fleet.Pareto:
		r.parXm = (r.c.Sizes.Param - 1) / r.c.Sizes.Param
		r.parInv = -1 / r.c.Sizes.Param
	}
}

// setupDomains splits the servers into ndom blocks and gives each
// dispatcher its own (partitioned) or the one.
func (r *runner) setupDomains(ndom int) {
	n := r.n
	r.doms = make([]domain, ndom)
	for i := range r.doms {
		r.doms[i].lo = int32(i * n / ndom)
		r.doms[i].hi = int32((i + 1) * n / ndom)
	}
	r.domOf = make([]int, r.k)
	for d := range r.domOf {
		if r.c.Partitioned {
			r.domOf[d] = d
		}
	}
}

// setupLiveLeastLoaded sets up live least loaded: exact queue lengths and
// per-domain lists of servers by queue length, all empty.
func (r *runner) setupLiveLeastLoaded(ndom int) {
	r.q = make([]int32, r.n)
	r.pos = make([]int32, r.n)
	r.lists = make([][][]int32, ndom)
	r.minQ = make([]int32, ndom)
	for i := range r.doms {
		dom := &r.doms[i]
		l0 := make([]int32, 0, dom.size())
		for s := dom.lo; s < dom.hi; s++ {
			r.pos[s] = int32(len(l0))
			l0 = append(l0, s)
		}
		r.lists[i] = [][]int32{l0}
	}
}

// setupWaters sets up stale least loaded: one water group per tally
// group (own → per dispatcher; shared or none → per domain).
func (r *runner) setupWaters(ndom int) {
	c, k := r.c, r.k
	r.waterOf = make([]int, k)
	if c.Tally == TallyOwn || c.Tally == TallyScaled {
		r.waters = make([]water, k)
		for d := range r.waters {
			r.waters[d] = water{raise: true, dom: &r.doms[r.domOf[d]]}
			if c.Tally == TallyScaled && k > 1 {
				r.waters[d].step = int32(k)
				r.waters[d].up = make([][]int32, k)
			}
			r.waterOf[d] = d
		}
		return
	}
	r.waters = make([]water, ndom)
	for i := range r.waters {
		r.waters[i] = water{raise: c.Tally == TallyShared, dom: &r.doms[i]}
	}
	for d := range r.waterOf {
		r.waterOf[d] = r.domOf[d]
	}
}

// setupTallies sets up the probing rules' tallies (none on a live board
// or without a tally; per dispatcher for own and scaled; per domain for
// shared) and FirstDiff's allowance and cap.
func (r *runner) setupTallies(ndom int) {
	c, k := r.c, r.k
	r.tallyOf = make([]int, k)
	switch {
	case r.live || c.Tally == TallyNone:
		for d := range r.tallyOf {
			r.tallyOf[d] = -1
		}
	case c.Tally == TallyOwn || c.Tally == TallyScaled:
		r.tallyInc = 1
		if c.Tally == TallyScaled {
			r.tallyInc = int32(k)
		}
		r.tallies = make([][]int32, k)
		for d := range r.tallyOf {
			r.tallyOf[d] = d
		}
	default: // shared: one tally per domain
		r.tallyInc = 1
		r.tallies = make([][]int32, ndom)
		for d := range r.tallyOf {
			r.tallyOf[d] = r.domOf[d]
		}
	}
	for i := range r.tallies {
		r.tallies[i] = make([]int32, r.n)
	}
	if c.Policy.Kind == fleet.FirstDiff {
		r.credit = make([]int, k)
		r.fdCap = c.FirstDiffCap
		if r.fdCap == 0 {
			r.fdCap = r.doms[0].size()
		}
	}
}

// size draws one job size (mean 1).
func (r *runner) size() float64 {
	switch r.sizes.Kind {
	case fleet.Det:
		return 1
	case fleet.H2:
		if r.rng.Float64() < r.h2p {
			return r.rng.ExpFloat64() * r.h2m1
		}
		return r.rng.ExpFloat64() * r.h2m2
	case fleet.Pareto:
		return r.parXm * math.Pow(1-r.rng.Float64(), r.parInv)
	case fleet.Erlang:
		var s float64
		for i := 0; i < int(r.sizes.Param); i++ {
			s += r.rng.ExpFloat64()
		}
		return s / r.sizes.Param
	}
	return r.rng.ExpFloat64()
}

// start lays down the initial state at time 0 (fleet.StartKind): sizes of the
// jobs present are drawn fresh; these jobs are never measured.
func (r *runner) start() {
	n := r.n
	q0 := make([]int, n)
	st := r.c.Start
	b := int(st.Resolved(r.c.Refresh)) // validated: it fits
	switch st.Kind {
	case fleet.StartBalanced:
		for s := range q0 {
			q0[s] = b
		}
	case fleet.StartHalf:
		perm := r.rng.Perm(n)
		for _, s := range perm[:n/2] {
			q0[s] = b
		}
	case fleet.StartSpread:
		perm := r.rng.Perm(n)
		for i, s := range perm {
			if n > 1 {
				q0[s] = int(math.Round(float64(i) * float64(b) / float64(n-1)))
			} else {
				q0[s] = b
			}
		}
	case fleet.StartSingle:
		q0[r.rng.IntN(n)] = b
	}
	for s, m := range q0 {
		t := 0.0
		for j := 0; j < m; j++ {
			t += r.size()
			r.addDeparture(int32(s), t)
		}
		r.last[s] = t
	}
	if r.c.Policy.Kind == fleet.Oracle {
		for i := range r.doms {
			r.idle[i] = r.idle[i][:0]
			dom := &r.doms[i]
			for s := dom.lo; s < dom.hi; s++ {
				if r.last[s] > 0 {
					r.busy[i].push(event{r.last[s], s})
				} else {
					r.idle[i] = append(r.idle[i], s)
				}
			}
		}
	}
}

// addDeparture records a job at server s that leaves at time t.
func (r *runner) addDeparture(s int32, t float64) {
	switch {
	case r.q != nil: // live least loaded
		r.move(s, 1)
		r.departs.push(event{t, s})
	case r.rings != nil:
		r.rings[s].push(t)
	case t > r.lp.nextRec:
		r.log = append(r.log, event{t, s})
	}
}

// move changes live queue length q[s] by delta (±1), keeping the bucket
// lists of its domain.
func (r *runner) move(s int32, delta int32) {
	di := r.domainOfServer(s)
	lists := r.lists[di]
	from := r.q[s]
	l := lists[from]
	i := r.pos[s]
	last := l[len(l)-1]
	l[i] = last
	r.pos[last] = i
	lists[from] = l[:len(l)-1]
	to := from + delta
	if int(to) == len(lists) {
		lists = append(lists, nil)
		r.lists[di] = lists
	}
	r.pos[s] = int32(len(lists[to]))
	lists[to] = append(lists[to], s)
	r.q[s] = to
	if to < r.minQ[di] {
		r.minQ[di] = to
	}
}

func (r *runner) domainOfServer(s int32) int {
	if len(r.doms) == 1 {
		return 0
	}
	// Blocks are [i*n/k, (i+1)*n/k): invert with a correction step.
	i := int(int64(s) * int64(len(r.doms)) / int64(r.n))
	for i+1 < len(r.doms) && s >= r.doms[i+1].lo {
		i++
	}
	for s < r.doms[i].lo {
		i--
	}
	return i
}

// drainLive processes live-least-loaded departures up to time t.
func (r *runner) drainLive(t float64) {
	for len(r.departs) > 0 && r.departs[0].t <= t {
		e := r.departs.pop()
		r.move(e.s, -1)
	}
}

// observe reads every server's queue at time t into the board and returns
// the record. On a stale board this is the refresh.
func (r *runner) observe(t float64) BoardStat {
	switch {
	case r.q != nil:
		r.drainLive(t)
		copy(r.board, r.q)
	case r.rings != nil:
		for s := range r.rings {
			r.board[s] = r.rings[s].count(t)
		}
	default:
		// Count the logged jobs still present, and keep only those that
		// will still be present at the next record.
		clear(r.board)
		next := float64(r.lp.nrec+1) * r.lp.step
		// Branch-free: whether a job is still present is a coin toss
		// for the branch predictor.
		log, board := r.log, r.board
		k := 0
		for _, e := range log {
			present, stays := 0, 0
			if e.t > t {
				present = 1
			}
			if e.t > next {
				stays = 1
			}
			board[e.s] += int32(present)
			log[k] = e
			k += stays
		}
		r.log = log[:k]
	}
	lo, hi := r.board[0], r.board[0]
	var sum int64
	for _, v := range r.board {
		sum += int64(v)
		lo = min(lo, v)
		hi = max(hi, v)
	}
	return BoardStat{Time: t, Mean: float64(sum) / float64(r.n), Min: lo, Max: hi}
}

// refreshPolicy rebuilds what the rule derives from a new board.
func (r *runner) refreshPolicy() {
	if r.waters != nil {
		for i := range r.doms {
			r.doms[i].sortByBoard(r.board)
		}
		for i := range r.waters {
			r.waters[i].reset()
		}
	}
	for _, t := range r.tallies {
		clear(t)
	}
}

// loop is the state of a run's event loop, kept between advance calls.
type loop struct {
	next     float64 // time of the next arrival
	nrec     int64   // board records made; the next falls at nrec·step
	nextRec  float64
	step     float64
	sum      float64 // response times of measured jobs
	boardSum float64
	jobs     int64
	arrivals int64
	records  int
	stopped  bool
	trace    []BoardStat
	hist     *responseHist // measured response times (Config.Tail); nil: not kept
}

// run simulates from the start state to the horizon.
func (r *runner) run() Result {
	r.begin()
	r.advance(r.c.Horizon)
	return r.result()
}

// begin lays down the start state and draws the first arrival.
func (r *runner) begin() {
	r.start()
	r.lp.step = r.c.Refresh
	if r.live {
		r.lp.step = r.c.SampleEvery
	}
	r.lp.next = r.rng.ExpFloat64() / (r.c.Load * float64(r.n))
	r.invRate = 1 / (r.c.Load * float64(r.n))
	r.checkAt = checkEvery
	r.chunk = checkEvery / (1 + int64(r.maxProbes()))
	if r.chunk < 1 {
		r.chunk = 1
	}
	r.arrive = r.arrivalLoop()
	if r.c.Tail {
		r.lp.hist = newResponseHist()
	}
}

// record makes the board record at time t; false stops the run.
func (r *runner) record(t float64) bool {
	st := r.observe(t)
	if !r.live {
		r.refreshPolicy()
	}
	if t >= r.c.Warmup {
		r.lp.boardSum += st.Mean
		r.lp.records++
	}
	if r.c.KeepTrace {
		r.lp.trace = append(r.lp.trace, st)
	}
	return r.c.Observe == nil || r.c.Observe(st)
}

// Cancellation is checked on elapsed work, not on a count of arrivals: an
// arrival counts one unit plus the servers it probed, a board record counts
// the servers it reads. A run therefore notices a cancelled context within
// about checkEvery units of work (a few milliseconds) whatever the rule:
// sqd with a million probes per job, or a board refreshed every 10⁻⁹.
const checkEvery = 1 << 16

// advance processes every arrival before until (and the board records
// before them). It returns false when the run was stopped or cancelled.
//
// Arrivals between two records run in chunks through arrive, which takes
// the specialised loop of the rule when there is one (fast.go); a chunk
// ends at the next record, at until, or after chunk arrivals, so that the
// context is checked between chunks. Splitting the loop does not change
// the order of anything, so results do not depend on it.
func (r *runner) advance(until float64) bool {
	lp := &r.lp
	if lp.stopped || r.cancelled {
		return false
	}
	for lp.next < until {
		for lp.next >= lp.nextRec {
			if !r.record(lp.nextRec) {
				lp.stopped = true
				return false
			}
			// Records fall at i·step, computed from an integer count so
			// that they stay exact over long horizons.
			lp.nrec++
			lp.nextRec = float64(lp.nrec) * lp.step
			r.work += int64(r.n)
			if r.work >= r.checkAt && r.interrupted() {
				return false
			}
		}
		a0, p0 := lp.arrivals, r.probes
		r.arrive(min(until, lp.nextRec), r.chunk)
		r.work += lp.arrivals - a0 + r.probes - p0
		if r.work >= r.checkAt && r.interrupted() {
			return false
		}
	}
	return true
}

// interrupted checks the context (when the run has one) and schedules the
// next check.
func (r *runner) interrupted() bool {
	r.checkAt = r.work + checkEvery
	if r.ctx != nil && r.ctx.Err() != nil {
		r.cancelled = true
		return true
	}
	return false
}

// arriveGeneric is arrive for any rule: it processes the arrivals before
// stop, at most limit of them.
func (r *runner) arriveGeneric(stop float64, limit int64) {
	lp := &r.lp
	invRate := r.invRate
	warm := r.c.Warmup
	// The hot counters live in locals and go back to lp on exit.
	t, sum, jobs, arrivals := lp.next, lp.sum, lp.jobs, lp.arrivals
	hist := lp.hist
	end := arrivals + limit
	for t < stop && arrivals < end {
		d := 0
		if r.k > 1 {
			d = int(r.rng.Uint64N(uint64(r.k)))
		}
		s := r.choose(d, t)
		start := r.last[s]
		if start < t {
			start = t
		}
		var size float64
		if r.sizes.Kind == fleet.Exp {
			size = r.rng.ExpFloat64()
		} else {
			size = r.size()
		}
		dep := start + size
		r.last[s] = dep
		r.addDeparture(s, dep)
		if r.busy != nil {
			r.oracleAssigned(d, s)
		}
		arrivals++
		if t >= warm {
			sum += dep - t
			jobs++
			if hist != nil {
				hist.add(dep - t)
			}
		}
		t += r.rng.ExpFloat64() * invRate
	}
	lp.next, lp.sum, lp.jobs, lp.arrivals = t, sum, jobs, arrivals
}

// result summarises the run so far.
func (r *runner) result() Result {
	lp := &r.lp
	res := Result{
		Jobs: lp.jobs, Arrivals: lp.arrivals, Records: lp.records,
		Stopped: lp.stopped, Trace: lp.trace, End: r.c.Horizon,
	}
	if lp.stopped {
		res.End = lp.nextRec
	}
	if lp.jobs > 0 {
		res.ResponseMean = lp.sum / float64(lp.jobs)
	}
	if lp.hist != nil && lp.hist.n > 0 {
		res.ResponseP99 = lp.hist.quantile(TailQuantile)
	}
	if lp.records > 0 {
		res.BoardMean = lp.boardSum / float64(lp.records)
	}
	if lp.arrivals > 0 {
		res.ProbesMean = float64(r.probes) / float64(lp.arrivals)
	}
	return res
}

// Stepper is one run advanced in steps, which may be paused between
// steps and resumed later (compare's sequential brackets set runs aside
// and take them up again when their outcome is wanted). Advancing a
// Stepper to the horizon in any number of steps gives the Result that Run
// gives for the same configuration and seed.
type Stepper struct {
	r *runner
}

// NewStepper starts a run of c with the given seed at time 0.
func NewStepper(c Config, seed uint64) (*Stepper, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	r := newRunner(c.withDefaults(), seed)
	r.begin()
	return &Stepper{r: r}, nil
}

// Advance simulates up to time until (capped at the horizon), checking
// ctx as Run does. It reports whether the run can go on: false once it
// reached the horizon, was stopped by Config.Observe, or was cancelled.
func (s *Stepper) Advance(ctx context.Context, until float64) bool {
	r := s.r
	r.ctx = ctx
	r.advance(min(until, r.c.Horizon))
	return !s.Done()
}

// Done reports whether the run is over (see Advance).
func (s *Stepper) Done() bool {
	r := s.r
	return r.lp.stopped || r.cancelled || r.lp.next >= r.c.Horizon
}

// Cancelled reports whether the run was cancelled through its context.
func (s *Stepper) Cancelled() bool { return s.r.cancelled }

// Result summarises the run so far (the run's Result once Done).
func (s *Stepper) Result() Result { return s.r.result() }
