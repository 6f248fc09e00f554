package meanfield

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestConvolveAddGapsZeros checks that convolveAddGaps's jump over rows
// known to be zero changes nothing, to the bit, that the rows it reports
// unwritten are, and that the jump is taken: told that a run of tiny but
// nonzero rows is zero, it drops less mass.
func TestConvolveAddGapsZeros(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	grev := make([]float64, 9)
	for i := range grev {
		grev[i] = rng.Float64()
	}
	const negl = 1e-20
	// Mass, a long run of zeros, a short run of dust, mass, zeros, mass.
	x := make([]float64, 2000)
	for i := range x {
		switch {
		case i < 300, i >= 1100 && i < 1400, i >= 1900:
			x[i] = rng.Float64()
		case i >= 1000 && i < 1100:
			x[i] = 1e-25 // at most negl: dropped
		}
	}
	run := func(z0, z1 int, sentinel float64) ([]float64, float64, int, int) {
		dst := make([]float64, len(x)+len(grev)-1)
		for i := range dst {
			dst[i] = sentinel
		}
		d, g0, g1 := convolveAddGaps(dst, x, grev, negl, z0, z1)
		return dst, d, g0, g1
	}
	want, wantDrop, _, _ := run(0, 0, 0)
	for _, z := range [][2]int{{300, 1000}, {400, 900}, {-50, 350}, {1400, 1900}, {1450, 1899}} {
		got, drop, g0, g1 := run(z[0], z[1], 0)
		if drop != wantDrop {
			t.Errorf("zeros %v: dropped %g, want %g", z, drop, wantDrop)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("zeros %v: dst[%d] = %g, want %g", z, i, got[i], want[i])
			}
		}
		// The longest unwritten run: from the end of the first stretch's
		// rows (300 + 8) to the start of the third's (1100).
		if g0 != 308 || g1 != 1100 {
			t.Errorf("zeros %v: unwritten rows [%d, %d), want [308, 1100)", z, g0, g1)
		}
		marked, _, _, _ := run(z[0], z[1], math.Pi)
		for i := g0; i < g1; i++ {
			if marked[i] != math.Pi {
				t.Fatalf("zeros %v: row %d reported unwritten holds %g", z, i, marked[i])
			}
		}
	}
	// Told that the dust is zero, the scan jumps it and drops less.
	if _, drop, _, _ := run(1000, 1100, 0); !(drop < wantDrop) {
		t.Errorf("jumping the dust: dropped %g, want less than %g", drop, wantDrop)
	}
}

// TestRefreshKnownZeros checks that the maps do not depend on the known
// zero rows (RefreshMap.zLo, zHi) to the bit, on wide boards where lazy
// bands leave long runs of zeros, for full and board-only maps; and that
// such runs arose (zMax).
func TestRefreshKnownZeros(t *testing.T) {
	cases := []struct {
		k         int
		lam, T    float64
		board     []float64
		boardOnly bool
	}{
		{10, 0.99, 20000, BoardSpread(10000), true},
		{10, 0.98, 8000, BoardSpread(6000), false},
		{5, 0.95, 3000, BoardHalf(6000), true},
		{3, 0.9, 2000, BoardSpread(4000), false},
	}
	for _, c := range cases {
		var outs [2][]float64
		var zmax int
		for i, off := range []bool{false, true} {
			m, err := NewRefreshMap(Refresh{Dispatchers: c.k, Load: c.lam, Period: c.T})
			if err != nil {
				t.Fatal(err)
			}
			m.boardOnly, m.noZeros = c.boardOnly, off
			p := c.board
			for range 2 {
				r, err := m.Apply(nil, p)
				if err != nil {
					t.Fatal(err)
				}
				p = r.Next
				if i == 0 {
					zmax = max(zmax, m.zMax)
				}
			}
			outs[i] = p
		}
		if len(outs[0]) != len(outs[1]) {
			t.Fatalf("k=%d λ=%v T=%v: %d rows with known zeros, %d without", c.k, c.lam, c.T, len(outs[0]), len(outs[1]))
		}
		for i := range outs[0] {
			if math.Float64bits(outs[0][i]) != math.Float64bits(outs[1][i]) {
				t.Fatalf("k=%d λ=%v T=%v: row %d = %v with known zeros, %v without", c.k, c.lam, c.T, i, outs[0][i], outs[1][i])
			}
		}
		if zmax < 1000 {
			t.Errorf("k=%d λ=%v T=%v: at most %d rows known zero; the case does not exercise them", c.k, c.lam, c.T, zmax)
		}
	}
}
