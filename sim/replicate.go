package sim

import (
	"context"
	"math"
)

// Stat is a mean over independent replications with its standard error
// (sample standard deviation / √N). SE is NaN when N < 2.
type Stat struct {
	Mean, SE float64
	N        int
}

// NewStat returns the mean and standard error of xs.
func NewStat(xs []float64) Stat {
	n := len(xs)
	if n == 0 {
		return Stat{Mean: math.NaN(), SE: math.NaN()}
	}
	var m float64
	for _, x := range xs {
		m += x
	}
	m /= float64(n)
	if n < 2 {
		return Stat{Mean: m, SE: math.NaN(), N: n}
	}
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return Stat{Mean: m, SE: math.Sqrt(ss / float64(n-1) / float64(n)), N: n}
}

// Summary gathers the replications of one configuration.
type Summary struct {
	Config   Config
	Runs     int
	Response Stat // mean time in system, service times
	Board    Stat // mean board value at refreshes (samples when live)
	Probes   Stat // probes per job
	Jobs     int64
	Arrivals int64
	Stopped  int // runs ended early by Config.Observe
	Results  []Result
}

// Summarize combines replications of c.
func Summarize(c Config, results []Result) Summary {
	s := Summary{Config: c.withDefaults(), Runs: len(results), Results: results}
	resp := make([]float64, 0, len(results))
	board := make([]float64, 0, len(results))
	probes := make([]float64, 0, len(results))
	for _, r := range results {
		resp = append(resp, r.ResponseMean)
		board = append(board, r.BoardMean)
		probes = append(probes, r.ProbesMean)
		s.Jobs += r.Jobs
		s.Arrivals += r.Arrivals
		if r.Stopped {
			s.Stopped++
		}
	}
	s.Response, s.Board, s.Probes = NewStat(resp), NewStat(board), NewStat(probes)
	return s
}

// Task is one run to do: a configuration and its seed.
type Task struct {
	Config Config
	Seed   uint64
}

// RunAll runs tasks on at most workers goroutines (a bounded pool) and
// returns results by task index, so the output never depends on the
// number of workers. When ctx is cancelled no new task starts and running
// ones stop at their next check; done[i] reports which tasks finished.
// progress, if set, is called (serially) after each finished task.
func RunAll(ctx context.Context, tasks []Task, workers int, progress func(done, total int)) (results []Result, done []bool, err error) {
	var notify func(int, Result, int, int)
	if progress != nil {
		notify = func(_ int, _ Result, d, total int) { progress(d, total) }
	}
	return RunAllNotify(ctx, tasks, workers, notify)
}

// RunAllNotify is RunAll with a callback that also receives each finished
// task's index and result, serially, as it finishes: a caller can record
// finished runs before the whole batch is done.
func RunAllNotify(ctx context.Context, tasks []Task, workers int, notify func(i int, r Result, done, total int)) (results []Result, done []bool, err error) {
	for _, t := range tasks {
		if err := t.Config.Validate(); err != nil {
			return nil, nil, err
		}
	}
	var fin func(int, Result, int)
	if notify != nil {
		fin = func(i int, r Result, d int) { notify(i, r, d, len(tasks)) }
	}
	results, done = Parallel(ctx, len(tasks), workers, func(i int) (Result, bool) {
		r := newRunner(tasks[i].Config.withDefaults(), tasks[i].Seed)
		r.ctx = ctx
		res := r.run()
		return res, !r.cancelled
	}, fin)
	return results, done, ctx.Err()
}

// Replicate runs c runs times with seeds derived from master and c.Key().
func Replicate(ctx context.Context, c Config, runs int, master uint64, workers int) (Summary, error) {
	tasks := make([]Task, runs)
	key := c.Key()
	for i := range tasks {
		tasks[i] = Task{Config: c, Seed: Seed(master, key, i)}
	}
	res, _, err := RunAll(ctx, tasks, workers, nil)
	if err != nil {
		return Summary{}, err
	}
	return Summarize(c, res), nil
}
