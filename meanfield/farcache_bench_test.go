package meanfield

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkParticleMap times one run of the particle map (particleRun) as
// FiniteEdge makes them at k = 5, λ = 0.9, N = 100, at T(1−λ)² = 3.30
// (about FiniteEdge's answer there for runs of 1000 periods; the map's own
// edge is 2.90, TestEdge): from the empty board, at most 500 periods, with
// FiniteEdge's detector (this seed's run does not tip: the tip metric is
// 0). Every period maps the board at one of up to 33 load levels, each
// with its board-only map made by the run, and the board's window count
// changes from one period to the next, so the far windows' truncation
// budget does too (farPlanCache). The seed is fixed: every iteration
// makes the same maps. Select it with -bench 'ParticleMap'.
func BenchmarkParticleMap(b *testing.B) {
	const (
		k, lam, N, runs = 5, 0.9, 100, 500
		seed            = 20260215
	)
	T := 3.30 / ((1 - lam) * (1 - lam))
	r := Refresh{Dispatchers: k, Load: lam, Period: T}
	theta := max(3/(1-lam), 0.1*T)
	var maps int
	var tip int
	b.ReportAllocs()
	for b.Loop() {
		rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		var err error
		tip, maps, _, err = particleRun(r, N, rng, runs, theta, BoardEmpty(), false, nil)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(maps), "maps")
	b.ReportMetric(float64(tip), "tip")
	b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N*maps), "ms/map")
}
