package sim

import (
	"context"
	"syscall"
	"testing"
	"time"

	"herd/fleet"
)

// cpuTime is the process's user + system time: on a shared machine the
// CPU time per job is steadier than the wall time.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// Each benchmark iteration simulates a fixed stretch of time on a runner
// that has already reached its steady state, so allocs/op measures the
// event loop alone (0 once the rings have grown) and jobs/s its speed on
// one core.
func benchSteady(b *testing.B, c Config, stretch float64) {
	b.Helper()
	c = c.withDefaults()
	// As long as Validate allows (half the arrival limit): far beyond
	// any benchmark's stretch.
	c.Horizon = MaxRunJobs / (2 * c.Load * float64(c.Servers))
	c.Warmup = 0
	if err := c.Validate(); err != nil {
		b.Fatal(err)
	}
	r := newRunner(c, 1)
	r.begin()
	t := 20 * stretch
	r.advance(t) // warm up: queues, rings and water levels reach their size
	before := r.lp.arrivals
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for b.Loop() {
		t += stretch
		r.advance(t)
	}
	cpu := cpuTime() - cpu0
	jobs := float64(r.lp.arrivals - before)
	b.ReportMetric(float64(cpu.Nanoseconds())/jobs, "cpu-ns/job")
	b.ReportMetric(jobs/b.Elapsed().Seconds(), "jobs/s")
	b.ReportMetric(b.Elapsed().Seconds()*1e9/jobs, "ns/job")
}

func BenchmarkSim(b *testing.B) {
	ll := fleet.Policy{Kind: fleet.LeastLoaded}
	sq2 := fleet.Policy{Kind: fleet.BestOfD, D: 2}
	cases := []struct {
		name    string
		c       Config
		stretch float64
	}{
		{"ll-own/N=100/k=5/T=300", Config{Servers: 100, Dispatchers: 5, Refresh: 300, Policy: ll, Tally: TallyOwn}, 300},
		{"ll-own/N=1600/k=5/T=300", Config{Servers: 1600, Dispatchers: 5, Refresh: 300, Policy: ll, Tally: TallyOwn}, 300},
		{"ll/N=100/T=10", Config{Servers: 100, Refresh: 10, Policy: ll}, 100},
		{"sq2/N=100/T=10", Config{Servers: 100, Refresh: 10, Policy: sq2}, 100},
		{"ll-live/N=100", Config{Servers: 100, Policy: ll}, 100},
		{"sq2-live/N=100", Config{Servers: 100, Policy: sq2}, 100},
		{"random/N=100", Config{Servers: 100, Policy: fleet.Policy{Kind: fleet.Random}}, 100},
		{"rr/N=100", Config{Servers: 100, Policy: fleet.Policy{Kind: fleet.RoundRobin}}, 100},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) { benchSteady(b, tc.c, tc.stretch) })
	}
}

// BenchmarkWorkers measures whole runs (setup included) through RunAll with
// one and two workers: two workers should give about twice the jobs/s.
func BenchmarkWorkers(b *testing.B) {
	c := Config{Servers: 1600, Dispatchers: 5, Refresh: 300, Policy: fleet.Policy{Kind: fleet.LeastLoaded}, Tally: TallyOwn, Horizon: 3000}
	tasks := make([]Task, 4)
	for i := range tasks {
		tasks[i] = Task{Config: c, Seed: uint64(i)}
	}
	for _, w := range []int{1, 2} {
		b.Run("workers="+string(rune('0'+w)), func(b *testing.B) {
			var jobs int64
			for b.Loop() {
				res, _, err := RunAll(context.Background(), tasks, w, nil)
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range res {
					jobs += r.Arrivals
				}
			}
			b.ReportMetric(float64(jobs)/b.Elapsed().Seconds(), "jobs/s")
		})
	}
}
