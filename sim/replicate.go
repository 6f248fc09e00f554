package sim

import (
	"context"
	"math"

	"herd/internal/pool"
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
	// ResponseP99 is the runs' 99th percentiles of the time in system
	// (Config.Tail; zero otherwise): its mean over runs and standard error.
	ResponseP99 Stat
	Board       Stat // mean board value at refreshes (samples when live)
	Probes      Stat // probes per job
	Jobs        int64
	Arrivals    int64
	Stopped     int // runs ended early by Config.Observe
	Results     []Result
}

// Summarize combines replications of c.
func Summarize(c Config, results []Result) Summary {
	s := Summary{Config: c.withDefaults(), Runs: len(results), Results: results}
	resp := make([]float64, 0, len(results))
	board := make([]float64, 0, len(results))
	probes := make([]float64, 0, len(results))
	var p99 []float64
	for _, r := range results {
		if s.Config.Tail {
			p99 = append(p99, r.ResponseP99)
		}
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
	if s.Config.Tail {
		s.ResponseP99 = NewStat(p99)
	}
	return s
}

// experiment is a kind of run the replication machinery drives: the
// queueing simulator's Config (results Result) and balls into bins'
// BallsConfig (results BallsResult). Both go through one path: Job, runJobs
// and replicas.
type experiment[R any] interface {
	Validate() error
	Key() string
	// runSeed is one run with its defaults filled in; false: cancelled.
	runSeed(ctx context.Context, seed uint64) (R, bool)
}

// Job is one run to do: a configuration and its seed.
type Job[C any] struct {
	Config C
	Seed   uint64
}

// Task is one queueing run to do.
type Task = Job[Config]

// BallsTask is one balls-into-bins run to do.
type BallsTask = Job[BallsConfig]

func (c Config) runSeed(ctx context.Context, seed uint64) (Result, bool) {
	r := newRunner(c.withDefaults(), seed)
	r.ctx = ctx
	res := r.run()
	return res, !r.cancelled
}

func (c BallsConfig) runSeed(ctx context.Context, seed uint64) (BallsResult, bool) {
	return runBalls(ctx, c.withDefaults(), seed)
}

// runJobs validates every job, then runs them on Parallel: results by job
// index, done[i] for the jobs that finished, and ctx's error. notify, if
// set, is called serially as each job finishes.
func runJobs[C experiment[R], R any](ctx context.Context, jobs []Job[C], workers int, notify func(i int, r R, done, total int)) (results []R, done []bool, err error) {
	for _, j := range jobs {
		if err := j.Config.Validate(); err != nil {
			return nil, nil, err
		}
	}
	var fin func(int, R, int)
	if notify != nil {
		fin = func(i int, r R, d int) { notify(i, r, d, len(jobs)) }
	}
	results, done = pool.Parallel(ctx, len(jobs), workers, func(i int) (R, bool) {
		return jobs[i].Config.runSeed(ctx, jobs[i].Seed)
	}, fin)
	return results, done, ctx.Err()
}

// progressNotify adapts a progress callback (done, total) to runJobs'.
func progressNotify[R any](progress func(done, total int)) func(int, R, int, int) {
	if progress == nil {
		return nil
	}
	return func(_ int, _ R, d, total int) { progress(d, total) }
}

// replicas runs c runs times with seeds derived from master and c.Key(),
// every run required.
func replicas[C experiment[R], R any](ctx context.Context, c C, runs int, master uint64, workers int) ([]R, error) {
	jobs := make([]Job[C], runs)
	key := c.Key()
	for i := range jobs {
		jobs[i] = Job[C]{Config: c, Seed: Seed(master, key, i)}
	}
	res, _, err := runJobs[C, R](ctx, jobs, workers, nil)
	return res, err
}

// RunAll runs tasks on at most workers goroutines (a bounded pool) and
// returns results by task index, so the output never depends on the
// number of workers. When ctx is cancelled no new task starts and running
// ones stop at their next check; done[i] reports which tasks finished.
// progress, if set, is called (serially) after each finished task.
func RunAll(ctx context.Context, tasks []Task, workers int, progress func(done, total int)) (results []Result, done []bool, err error) {
	return runJobs(ctx, tasks, workers, progressNotify[Result](progress))
}

// RunAllNotify is RunAll with a callback that also receives each finished
// task's index and result, serially, as it finishes: a caller can record
// finished runs before the whole batch is done.
func RunAllNotify(ctx context.Context, tasks []Task, workers int, notify func(i int, r Result, done, total int)) (results []Result, done []bool, err error) {
	return runJobs(ctx, tasks, workers, notify)
}

// Replicate runs c runs times with seeds derived from master and c.Key().
func Replicate(ctx context.Context, c Config, runs int, master uint64, workers int) (Summary, error) {
	res, err := replicas[Config, Result](ctx, c, runs, master, workers)
	if err != nil {
		return Summary{}, err
	}
	return Summarize(c, res), nil
}
