package main

import (
	"context"
	"sort"

	"herd/compare"
)

// lawMapLimits computes x*(k) from the heavy-traffic limit map
// (compare.MapLimit) for every k on the worker pool, largest k first (the
// map's grid grows with k). Results are stored by index, so they do not
// depend on the number of workers.
func lawMapLimits(ctx context.Context, ks []int, step float64, workers int) (res []compare.MapLimitResult, errs []error, done []bool) {
	res = make([]compare.MapLimitResult, len(ks))
	errs = make([]error, len(ks))
	order := make([]int, len(ks))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ks[order[a]] > ks[order[b]] })
	got := parallel(ctx, len(ks), workers, func(i int) {
		j := order[i]
		res[j], errs[j] = compare.MapLimit(ks[j], compare.MapLimitSettings{Step: step, Workers: workers})
	}, nil)
	done = make([]bool, len(ks))
	for i, d := range got {
		done[order[i]] = d
	}
	return res, errs, done
}
