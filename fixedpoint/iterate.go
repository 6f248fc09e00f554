package fixedpoint

// Iteration is the iteration x_{n+1} = F(x_n) of a map whose points may
// change length from map to map (meanfield's truncated boards), run on an
// Orbit until it closes up on a fixed point or a periodic orbit under the
// Orbit's distance (for example L1), with hooks for an accelerating jump
// and for the caller's progress reports, cancellation and checkpoints. It
// is the loop of meanfield's attractor searches (FindAttractor and Edge's
// corrector, the periodic-update map, the heavy-traffic limit map).
type Iteration struct {
	// Map writes F(x) into dst and returns it: dst is the storage of the
	// point the orbit drops next (Orbit.Spare), nil while the orbit
	// fills, and Map may reallocate it. Its error ends the run.
	Map func(dst, x []float64) ([]float64, error)
	// Jump, if not nil, is asked after every map that moved its point x
	// by more than Tol, ‖F(x) − x‖ > Tol, for a point to continue from in
	// place of F(x) (an extrapolation towards the fixed point, for
	// example AndersonMixer's), or nil for the plain step. A jump's point
	// is not tested for closing up: convergence and periods are judged on
	// plain maps only.
	Jump func(x, fx []float64) []float64
	// Tol and Sep are Orbit.Period's: the newest point closes up at
	// distance Tol, the orbit's points at least Sep apart.
	Tol, Sep float64
	// Visit, if not nil, is called after every map that closes no orbit,
	// with ‖F(x) − x‖ (the residual); it ends the run when it returns true
	// or an error.
	Visit func(residual float64) (bool, error)
}

// Run makes the maps numbered from, from+1, … (from maps were made
// before, for example by a run resumed from its checkpoint) below maxIter
// from the newest point of o, pushing each result (or jump) onto o. It
// returns the period of the orbit the newest point closes (Orbit.Period
// with minimum period 1; 0 when Visit or maxIter ended the run first) and
// the error of Map or Visit.
func (it Iteration) Run(o *Orbit, from, maxIter int) (int, error) {
	for n := from; n < maxIter; n++ {
		x := o.Back(0)
		fx, err := it.Map(o.Spare(), x)
		if err != nil {
			return 0, err
		}
		var jump []float64
		var residual float64
		if it.Jump != nil {
			if residual = o.norm(fx, x); residual > it.Tol {
				jump = it.Jump(x, fx)
			}
		}
		if jump != nil {
			o.Push(jump)
		} else {
			o.Push(fx)
			if per := o.Period(it.Tol, it.Sep, 1); per > 0 {
				return per, nil
			}
			residual = o.Distance(1)
		}
		if it.Visit != nil {
			if end, err := it.Visit(residual); end || err != nil {
				return 0, err
			}
		}
	}
	return 0, nil
}
