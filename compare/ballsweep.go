package compare

import (
	"context"
	"slices"

	"herd/sim"
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

// BallsRunCost is the relative cost of one run of c, for progress: its
// balls (each a constant number of probes for the policies herd balls
// offers, up to D).
func BallsRunCost(c sim.BallsConfig) float64 {
	c = c.Normalized()
	return float64(c.Balls) * float64(max(1, c.Policy.D))
}
