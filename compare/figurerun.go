package compare

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"herd/meanfield"
	"herd/sim"
)

// figureRun is what one figure's experiment computes with.
type figureRun struct {
	FigureSettings
	index int
	pool  *figurePool
	mu    *sync.Mutex // serialises Progress across figures
}

// progress reports a stage's work done.
func (r *figureRun) progress(stage string, done, total float64, known bool) {
	if r.Progress == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Progress(FigureProgress{Figure: r.index, Stage: stage, Done: done, Total: total, TotalKnown: known})
}

// RunCost is a simulator run's cost for progress estimates (the unit of
// FigureProgress): its expected number of jobs, servers × load × horizon,
// with sim's defaults for fields left zero. Runs' times are close to
// proportional to it; counts of runs are not, as lengths differ a
// thousandfold.
func RunCost(c sim.Config) float64 {
	n := c.Normalized()
	return float64(n.Servers) * n.Load * n.Horizon
}

// RunCosts are the tasks' RunCosts, for a progress estimate over them.
func RunCosts(tasks []sim.Task) []float64 {
	costs := make([]float64, len(tasks))
	for i, t := range tasks {
		costs[i] = RunCost(t.Config)
	}
	return costs
}

// parallel calls work(i) for i in [0, n) in the pool's slots and waits for
// every call it started, also when ctx is cancelled (then it returns
// ctx's error). Each call reports its cost; stage names the work for
// progress.
func (r *figureRun) parallel(ctx context.Context, n int, stage string, cost func(i int) float64, work func(i int) error) error {
	var total float64
	for i := 0; i < n; i++ {
		total += cost(i)
	}
	// Reported at once, so that the stage's cost is known (and counted
	// in the whole run's estimate) before its first call finishes.
	r.progress(stage, 0, total, true)
	// Every call at once (a worker each): the calls wait for the figures'
	// slots (figurePool), which bound the work.
	var done float64
	errs := make([]error, n)
	NewPool(ctx, n, func(i, _, _ int) {
		if errs[i] == nil {
			done += cost(i)
			r.progress(stage, done, total, true)
		}
	})(n, func(i int) { errs[i] = work(i) })
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return errors.Join(errs...)
}

// simulate runs every configuration runs times (seeds from the master
// seed, the configuration and the replication) and returns one summary
// each.
func (r *figureRun) simulate(ctx context.Context, cfgs []sim.Config, runs int) ([]sim.Summary, error) {
	var tasks []sim.Task
	for _, c := range cfgs {
		if err := c.Validate(); err != nil {
			return nil, err
		}
		key := c.Key()
		for rep := 0; rep < runs; rep++ {
			tasks = append(tasks, sim.Task{Config: c, Seed: sim.Seed(r.Seed, key, rep)})
		}
	}
	res := make([]sim.Result, len(tasks))
	err := r.parallel(ctx, len(tasks), "runs", func(i int) float64 { return RunCost(tasks[i].Config) }, func(i int) error {
		t := tasks[i]
		key := fmt.Sprintf("%s seed=%d", t.Config.Key(), t.Seed)
		v, err := r.pool.do(ctx, "run "+key, r.index, func() (any, error) {
			if res, ok := r.Journal.run(key); ok {
				return res, nil
			}
			out, _, err := sim.RunAll(ctx, []sim.Task{t}, 1, nil)
			if err != nil {
				return nil, err
			}
			return out[0], r.Journal.putRun(key, out[0])
		})
		if err == nil {
			res[i] = v.(sim.Result)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]sim.Summary, len(cfgs))
	for i, c := range cfgs {
		out[i] = sim.Summarize(c, res[i*runs:(i+1)*runs])
	}
	return out, nil
}

// models computes n model points in the pool.
func (r *figureRun) models(ctx context.Context, n int, work func(i int)) error {
	return r.parallel(ctx, n, "model points", func(int) float64 { return ModelPointCost }, func(i int) error {
		_, err := r.pool.do(ctx, fmt.Sprintf("figure %d model point %d", r.index, i), r.index, func() (any, error) {
			work(i)
			return nil, nil
		})
		return err
	})
}

// brackets computes n brackets concurrently, the settings of bracket i
// from settings(i), which may wait for a model edge. Each bracket spreads
// its runs over Workers of its own, outside the pool: a bracket is a
// chain of steps, each waiting for the last, so the longest of them
// bounds the figures' wall time and they should not queue behind
// independent runs. Each result depends only on its settings.
func (r *figureRun) brackets(ctx context.Context, n int, settings func(i int) (BracketSettings, error)) ([]BracketResult, error) {
	out := make([]BracketResult, n)
	errs := make([]error, n)
	// Progress sums the runs of all n brackets; its stage says how many
	// brackets are done.
	var mu sync.Mutex
	runs := make([]int, n)
	finished := 0
	report := func(i, done int, end bool) { // done < 0: unchanged
		mu.Lock()
		defer mu.Unlock()
		if done >= 0 {
			runs[i] = done
		}
		if end {
			finished++
		}
		all := 0
		for _, d := range runs {
			all += d
		}
		r.progress(fmt.Sprintf("brackets (%d of %d done)", finished, n), float64(all), float64(all), false)
	}
	// Every bracket at once (a worker each), as the paragraph above says.
	NewPool(ctx, n, nil)(n, func(i int) {
		s, err := settings(i)
		if err != nil {
			errs[i] = err
			return
		}
		out[i], errs[i] = Bracket(ctx, s, r.Journal.bracketStore(), func(done, _ int) { report(i, done, false) })
		report(i, -1, true)
	})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// edge is the refresh map's edge at k dispatchers and load, computed once
// for every figure that asks, at once rather than in a slot: brackets wait
// for it. Ctrl-C (ctx) stops it within a map (EdgeSettings.Stop, which
// does not change the result); it then returns ctx's error, and the
// stopped search is forgotten.
func (r *figureRun) edge(ctx context.Context, k int, load float64) (meanfield.EdgeResult, error) {
	type edgeOut struct {
		r   meanfield.EdgeResult
		err error
	}
	v, err := r.pool.once(ctx, fmt.Sprintf("edge k=%d load=%g", k, load), r.index, false, func() (any, error) {
		e, err := meanfield.Edge(meanfield.EdgeSettings{Dispatchers: k, Load: load, Stop: func() bool { return ctx.Err() != nil }})
		if errors.Is(err, meanfield.ErrStopped) && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return edgeOut{e, err}, nil
	})
	if err != nil {
		return meanfield.EdgeResult{}, err
	}
	o := v.(edgeOut)
	return o.r, o.err
}
