package compare

import (
	"context"
	"slices"

	"herd/sim"
)

// The sizes herd balls accepts, beyond sim.BallsConfig.Validate's.
const (
	// BallsMaxBins: a run keeps two int32 per bin (loads and the stale
	// view), so 2²⁷ bins take 1 GiB.
	BallsMaxBins = 1 << 27
	// BallsMaxBalls: about 10 ns per probe, so 10¹¹ balls are hours per run.
	BallsMaxBalls = 100_000_000_000
)

// BallsRows runs every configuration runs times, each run's seed derived
// from master, the configuration and the run's index, on at most workers
// goroutines, and summarizes the rows whose runs all finished: sums holds
// them in order, rows[j] the index in cfgs of sums[j]. The error is the
// runs' (a cancellation keeps the finished rows). progress, if set, is
// called serially after each finished run.
func BallsRows(ctx context.Context, cfgs []sim.BallsConfig, runs int, master uint64, workers int, notify func(i int, r sim.BallsResult, done, total int)) (sums []sim.BallsSummary, rows []int, err error) {
	var tasks []sim.BallsTask
	for _, c := range cfgs {
		key := c.Key()
		for i := 0; i < runs; i++ {
			tasks = append(tasks, sim.BallsTask{Config: c, Seed: sim.Seed(master, key, i)})
		}
	}
	results, done, err := sim.RunBallsAllNotify(ctx, tasks, workers, notify)
	if done == nil { // invalid: nothing ran
		return nil, nil, err
	}
	for i, c := range cfgs {
		lo, hi := i*runs, (i+1)*runs
		if slices.Contains(done[lo:hi], false) {
			continue
		}
		sums = append(sums, sim.SummarizeBalls(c, results[lo:hi]))
		rows = append(rows, i)
	}
	return sums, rows, err
}

// BallsRunCosts are the relative costs of BallsRows' runs (runs of each
// configuration, in order), for progress: a run's balls (each a constant
// number of probes for the policies herd balls offers, up to D).
func BallsRunCosts(cfgs []sim.BallsConfig, runs int) []float64 {
	costs := make([]float64, 0, len(cfgs)*runs)
	for _, c := range cfgs {
		c = c.Normalized()
		for range runs {
			costs = append(costs, float64(c.Balls)*float64(max(1, c.Policy.D)))
		}
	}
	return costs
}
