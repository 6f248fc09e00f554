package sim

import (
	"math"
	"sort"
	"testing"
)

// The ziggurat sampler has the exponential law: mean 1 and second moment
// 2 within sampling error, and a Kolmogorov–Smirnov distance to 1 − e^{−x}
// below the 0.1% critical value 1.95/√n (Marsaglia, Tsang & Wang, "Evaluating
// Kolmogorov's distribution", J. Stat. Software 8(18), 2003).
func TestExpFloat64(t *testing.T) {
	t.Parallel()
	const n = 400000
	r := newRNG(42)
	xs := make([]float64, n)
	var m1, m2 float64
	for i := range xs {
		x := r.ExpFloat64()
		xs[i] = x
		m1 += x
		m2 += x * x
	}
	m1 /= n
	m2 /= n
	// Var(X) = 1 and Var(X²) = E[X⁴] − 4 = 20 for the unit exponential.
	if se := 1 / math.Sqrt(n); math.Abs(m1-1) > 4*se {
		t.Errorf("mean %.5f, want 1 ± %.5f", m1, 4*se)
	}
	if se := math.Sqrt(20.0 / n); math.Abs(m2-2) > 4*se {
		t.Errorf("second moment %.5f, want 2 ± %.5f", m2, 4*se)
	}
	sort.Float64s(xs)
	var d float64
	for i, x := range xs {
		f := -math.Expm1(-x)
		d = max(d, math.Abs(f-float64(i)/n), math.Abs(f-float64(i+1)/n))
	}
	if crit := 1.95 / math.Sqrt(n); d > crit {
		t.Errorf("KS distance %.5f, want below %.5f", d, crit)
	}
	// The tail beyond the base layer is reached and is exponential.
	tail := 0
	for _, x := range xs {
		if x > zigR {
			tail++
		}
	}
	if want := n * math.Exp(-zigR); math.Abs(float64(tail)-want) > 4*math.Sqrt(want) {
		t.Errorf("%d draws beyond %.3f, want %.1f", tail, zigR, want)
	}
}

// Uint64N is uniform: a chi-square test over 7 cells (6 degrees of freedom,
// 0.1% critical value 22.46).
func TestUint64N(t *testing.T) {
	t.Parallel()
	r := newRNG(7)
	const n, cells = 700000, 7
	var count [cells]float64
	for i := 0; i < n; i++ {
		count[r.Uint64N(cells)]++
	}
	var chi2 float64
	for _, c := range count {
		e := float64(n) / cells
		chi2 += (c - e) * (c - e) / e
	}
	if chi2 > 22.46 {
		t.Errorf("chi-square %.2f over %v, want below 22.46", chi2, count)
	}
	a, b := newRNG(7), newRNG(7)
	for i := 0; i < 100; i++ {
		if a.Uint64() != b.Uint64() {
			t.Fatal("same seed, different streams")
		}
	}
}

// wedge answers exactly as the plain test y < e^{−x} (math.Exp) that it
// shortcuts: on the points expSlow draws, and on points within a few ulp
// of the curve on either side, where only the exact test can decide.
func TestWedge(t *testing.T) {
	t.Parallel()
	r := newRNG(3)
	shortcut, wedges, bad := 0, 0, 0
	for n := 0; n < 2000000; n++ {
		u := r.Uint64()
		j, i := uint32(u), uint8(u>>32)
		if i == 0 || j < zigK[i] {
			continue
		}
		wedges++
		x := float64(j) * zigW[i]
		e := math.Exp(-x)
		ys := []float64{zigF[i] + r.Float64()*(zigF[i-1]-zigF[i]), e, math.Nextafter(e, 0), math.Nextafter(e, 2),
			e * (1 - 1e-12), e * (1 + 1e-12)}
		for _, y := range ys {
			if got, want := wedge(i, x, y), y < e; got != want {
				if bad++; bad <= 5 {
					t.Errorf("layer %d, x = %v, y = %v: wedge %v, y < e^{−x} %v", i, x, y, got, want)
				}
			}
		}
		lo, hi := zigF[i]*(1+(zigX[i]-x))*(1-1e-9), (zigF[i]+zigS[i]*(zigX[i]-x))*(1+1e-6)
		if y := ys[0]; y < lo || y > hi {
			shortcut++
		}
	}
	// The squeeze must spare most calls to math.Exp, or it is not worth it.
	if 2*shortcut < wedges {
		t.Errorf("%d of %d wedge points settled without math.Exp, want most", shortcut, wedges)
	}
	t.Logf("wedge points settled without math.Exp: %d of %d", shortcut, wedges)
}

// ExpFloat64's stream is the one of the plain ziggurat (Marsaglia & Tsang
// 2000, with math.Exp in the wedge test): the squeeze changes no draw.
func TestExpFloat64Stream(t *testing.T) {
	t.Parallel()
	a, b := newRNG(11), newRNG(11)
	plain := func(r *rng) float64 {
		for {
			u := r.Uint64()
			j, i := uint32(u), uint8(u>>32)
			x := float64(j) * zigW[i]
			switch {
			case j < zigK[i]:
				return x
			case i == 0:
				return zigR - math.Log(1-r.Float64())
			case zigF[i]+r.Float64()*(zigF[i-1]-zigF[i]) < math.Exp(-x):
				return x
			}
		}
	}
	for n := 0; n < 1000000; n++ {
		if x, y := a.ExpFloat64(), plain(b); x != y || *a != *b {
			t.Fatalf("draw %d: ExpFloat64 %v, plain ziggurat %v (states %v, %v)", n, x, y, *a, *b)
		}
	}
}
