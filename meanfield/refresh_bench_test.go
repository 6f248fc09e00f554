package meanfield

import "testing"

// benchBoard iterates the map n times from p to reach a representative
// state for a benchmark.
func benchBoard(b *testing.B, m *RefreshMap, p []float64, n int) []float64 {
	b.Helper()
	for i := 0; i < n; i++ {
		res, err := m.Apply(nil, p)
		if err != nil {
			b.Fatal(err)
		}
		p = res.Next
	}
	return p
}

// BenchmarkRefreshApply times one application of the refresh map. The
// independent implementation of the package doc, §2, reports 5.4 ms (k = 5,
// λ = 0.9, T = 300, balanced), 173 ms (k = 10, λ = 0.95, T = 2,800) and
// about 1 s (T = 3,000 in a herd).
func BenchmarkRefreshApply(b *testing.B) {
	cases := []struct {
		name  string
		k     int
		load  float64
		T     float64
		start []float64
		warm  int
	}{
		// Near the balanced fixed point: 40 iterations from empty (it
		// converges to 1e-11 in 44).
		{"k5_l0.9_T300_balanced", 5, 0.9, 300, BoardEmpty(), 40},
		// Half the servers at 0.4T, a few maps into the herd.
		{"k5_l0.9_T300_herd", 5, 0.9, 300, BoardHalf(120), 3},
		// The edge computation's parameters (k = 10, λ = 0.95, T ≈ 2,730):
		// a balanced state, 10 maps from empty, and a herd, 3 maps from
		// half the servers at 0.4T (thousands of rows, board mean ≈ 1,000).
		{"k10_l0.95_T2730_balanced", 10, 0.95, 2730, BoardEmpty(), 10},
		{"k10_l0.95_T2730_herd", 10, 0.95, 2730, BoardHalf(int(0.4 * 2730)), 3},
		// 10 iterations from empty: a balanced state (board mean ≈ 12).
		{"k10_l0.95_T2800_balanced", 10, 0.95, 2800, BoardEmpty(), 10},
		// Half the servers at 0.4T (package doc, §2, start half:0.4T), a few
		// iterations into the herd.
		{"k5_l0.9_T3000_herd", 5, 0.9, 3000, BoardHalf(1200), 3},
		// The edge at k = 5, λ = 0.99 (T ≈ 28,067): a balanced state,
		// 60 maps from empty (board mean ≈ 69).
		{"k5_l0.99_T28067_balanced", 5, 0.99, 28067, BoardEmpty(), 60},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			m, err := NewRefreshMap(Refresh{Dispatchers: c.k, Load: c.load, Period: c.T})
			if err != nil {
				b.Fatal(err)
			}
			p := benchBoard(b, m, c.start, c.warm)
			dst := make([]float64, 0, 4*len(p)+1024)
			var res RefreshResult
			b.ReportAllocs()
			for b.Loop() {
				res, err = m.Apply(dst, p)
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(res.Rows), "rows")
			b.ReportMetric(float64(res.Windows), "windows")
			b.ReportMetric(res.BoardMean, "board")
		})
	}
}

// BenchmarkHerdMap times one map of a herd's board as the edge's herd
// classification and ConfirmEdge's runs make them (closedform: board-only
// with the full windows' closed form), as they made them before (boardonly:
// kept to the full map's bytes) and with the time-averaged queue (full):
// k = 5, λ = 0.99, T = 27,500 (below the edge at 28,067), 12 maps from
// half the servers at 3,000 jobs (board mean about 13,500, 28,000 rows).
// One core of the 2-core AMD EPYC, 2026-12-06, three runs each, before
// and after evolve's bounds on the rows a window writes: board-only
// 182-248 → 64-72 ms, full 332-357 → 205-269 ms (the herd made full maps
// before it went board-only); the closed form, 64 ms against 76 ms.
func BenchmarkHerdMap(b *testing.B) {
	r := Refresh{Dispatchers: 5, Load: 0.99, Period: 27500}
	warm, err := NewRefreshMap(r)
	if err != nil {
		b.Fatal(err)
	}
	warm.boardOnly = true
	p := benchBoard(b, warm, BoardHalf(3000), 12)
	for _, c := range []struct {
		name                 string
		boardOnly, sameBytes bool
	}{{"closedform", true, false}, {"boardonly", true, true}, {"full", false, false}} {
		b.Run(c.name, func(b *testing.B) {
			m, err := NewRefreshMap(r)
			if err != nil {
				b.Fatal(err)
			}
			m.boardOnly, m.sameBytes = c.boardOnly, c.sameBytes
			benchHerdMap(b, m, p)
		})
	}
}

// BenchmarkHerdMapWide times one board-only map of a wide herd board, as
// the checks at λ = 0.995 make them (a herd there spans 10⁵–10⁶ rows):
// k = 10, λ = 0.995, just below the edge (T = 271,400), from servers
// spread evenly over 0 … 200,000 jobs. There the lazy band leaves a
// long run of zeros in the water, and most classes still drain at T.
func BenchmarkHerdMapWide(b *testing.B) {
	m, err := NewRefreshMap(Refresh{Dispatchers: 10, Load: 0.995, Period: 271400})
	if err != nil {
		b.Fatal(err)
	}
	m.boardOnly = true
	benchHerdMap(b, m, BoardSpread(200000))
}

// benchHerdMap times m's map of board p, reporting the rows and board
// mean of its result.
func benchHerdMap(b *testing.B, m *RefreshMap, p []float64) {
	var res RefreshResult
	var err error
	for b.Loop() {
		if res, err = m.Apply(nil, p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(res.Rows), "rows")
	b.ReportMetric(res.BoardMean, "board")
}
