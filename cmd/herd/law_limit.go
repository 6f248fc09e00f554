package main

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"herd/cmd/internal/table"
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
		res[j], errs[j] = compare.MapLimit(ks[j], compare.MapLimitSettings{Step: step})
	}, nil)
	done = make([]bool, len(ks))
	for i, d := range got {
		done[order[i]] = d
	}
	return res, errs, done
}

// addMapLimitRows adds to t a limit_map row per k (x*, its error, the law,
// the ratio and whether x* lies within band of the law), the fit
// x* = a(k − b) on them (row fit_limit_map, weights 1/x_se², Birge-scaled
// as fit_limit), and notes. Failures become warnings.
func addMapLimitRows(t *table.Table, ks []int, res []compare.MapLimitResult, errs []error, done []bool, band float64) {
	fk := make([]float64, len(ks))
	xs := make([]float64, len(ks))
	se := make([]float64, len(ks))
	var parts []string
	for j, k := range ks {
		fk[j], xs[j], se[j] = float64(k), math.NaN(), math.NaN()
		if !done[j] {
			continue
		}
		if errs[j] != nil {
			t.Warnings = append(t.Warnings, fmt.Sprintf("k=%d: limit map: %v", k, errs[j]))
			continue
		}
		law := lawScaled(k)
		row := make([]any, len(lawColumns))
		row[0], row[1], row[6] = "limit_map", k, lawCell(law)
		if k > 64 {
			t.Warnings = append(t.Warnings, fmt.Sprintf("k=%d: the limit map's grid error is checked up to k = 64 only; above it the impulse (slope k − 1) spreads each grid cell over (k − 1)·h and x_se may be too small — compare with a smaller --limit-step", k))
		}
		if r := res[j]; r.Exists {
			xs[j], se[j] = r.Value, r.Err
			row[4], row[5] = r.Value, r.Err
			if law > 0 {
				row[7] = r.Value / law
				row[20] = compare.InBand(r.Value, r.Err, law, band)
			}
			parts = append(parts, fmt.Sprintf("k = %d: %s", k, pm(r.Value, r.Err)))
		} else {
			parts = append(parts, fmt.Sprintf("k = %d: none", k))
		}
		t.AddRow(row...)
	}
	if len(parts) == 0 {
		return
	}
	t.Notes = append(t.Notes, "limit map x*(k) (λ → 1 computed directly, no extrapolation in λ): "+strings.Join(parts, "; "))
	f, err := compare.FitLaw(fk, xs, se)
	if err != nil {
		t.Warnings = append(t.Warnings, fmt.Sprintf("limit map: no fit: %v", err))
		return
	}
	misfit := math.Sqrt(f.Chi2 / float64(f.DoF))
	t.AddRow(fitRow("fit_limit_map", nil, f, misfit)...)
	t.Notes = append(t.Notes, fmt.Sprintf("limit map: x* = %s·(k − %s), %d points, largest residual %+.3g at k = %g (misfit %.3g)",
		pm(f.A, f.ASE), pm(f.B, f.BSE), f.Points, f.MaxResidual, f.MaxResidualK, misfit))
}
