package sim

import (
	"math"
	"math/bits"
)

// rng is the simulator's generator: xoshiro256++ (Blackman & Vigna,
// "Scrambled linear pseudorandom number generators", ACM TOMS 47(4), 2021),
// seeded through SplitMix64 as its authors recommend. It is a concrete type
// so that the hot loop's draws inline: math/rand/v2's *Rand reaches its
// source through an interface, and its PCG-DXSM costs two 64×64
// multiplications per draw; together they were 40% of a simulated job's
// time. It satisfies math/rand/v2's Source.
type rng struct{ s0, s1, s2, s3 uint64 }

// newRNG seeds the four words from seed with SplitMix64, which never yields
// the all-zero state from distinct outputs.
func newRNG(seed uint64) *rng {
	var r rng
	x := seed
	next := func() uint64 {
		x += 0x9e3779b97f4a7c15
		return mix64(x - 0x9e3779b97f4a7c15)
	}
	r.s0, r.s1, r.s2, r.s3 = next(), next(), next(), next()
	return &r
}

// Uint64 returns 64 uniform bits.
func (r *rng) Uint64() uint64 {
	res := bits.RotateLeft64(r.s0+r.s3, 23) + r.s0
	t := r.s1 << 17
	r.s2 ^= r.s0
	r.s3 ^= r.s1
	r.s1 ^= r.s2
	r.s0 ^= r.s3
	r.s2 ^= t
	r.s3 = bits.RotateLeft64(r.s3, 45)
	return res
}

// Uint64N returns a uniform integer in [0, n), n > 0, by Lemire's
// multiply-and-reject ("Fast random integer generation in an interval",
// ACM TOMACS 29(1), 2019): exact, and almost never more than one draw.
func (r *rng) Uint64N(n uint64) uint64 {
	hi, lo := bits.Mul64(r.Uint64(), n)
	if lo < n {
		return r.uint64NSlow(hi, lo, n)
	}
	return hi
}

// uint64NSlow finishes Uint64N's rare case (lo < n) out of line, so that
// the common case stays short (fast.go writes it out in its loops).
//
//go:noinline
func (r *rng) uint64NSlow(hi, lo, n uint64) uint64 {
	thresh := -n % n
	for lo < thresh {
		hi, lo = bits.Mul64(r.Uint64(), n)
	}
	return hi
}

// IntN returns a uniform int in [0, n), n > 0.
func (r *rng) IntN(n int) int { return int(r.Uint64N(uint64(n))) }

// Float64 returns a uniform float64 in [0, 1) with 53 random bits.
func (r *rng) Float64() float64 { return float64(r.Uint64()>>11) * 0x1p-53 }

// Perm returns a uniformly random permutation of [0, n) (Fisher–Yates).
func (r *rng) Perm(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := r.IntN(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// ExpFloat64 returns an exponential variate with mean 1 by the ziggurat
// method of Marsaglia & Tsang ("The ziggurat method for generating random
// variables", J. Stat. Software 5(8), 2000), with 256 layers. As in
// math/rand/v2, the layer index and the 32-bit abscissa come from disjoint
// bits of one 64-bit draw.
//
// The common case (97.8% of draws, from the tables: the point falls inside its
// layer's rectangle) is small enough to inline into the hot loop; the rest
// continues out of line in expSlow with the same draws, so the stream is
// the one of the plain loop.
func (r *rng) ExpFloat64() float64 {
	u := r.Uint64()
	j := uint32(u)
	i := uint8(u >> 32)
	if j < zigK[i] {
		return float64(j) * zigW[i]
	}
	return r.expSlow(u)
}

// expSlow is ExpFloat64 after its first draw u fell outside the rectangle.
func (r *rng) expSlow(u uint64) float64 {
	for {
		j := uint32(u)
		i := uint8(u >> 32)
		x := float64(j) * zigW[i]
		if j < zigK[i] {
			return x
		}
		if i == 0 {
			// The tail beyond the base layer is exponential again.
			return zigR - math.Log(1-r.Float64())
		}
		if y := zigF[i] + r.Float64()*(zigF[i-1]-zigF[i]); wedge(i, x, y) {
			return x
		}
		u = r.Uint64()
	}
}

// wedge is the ziggurat's wedge test y < e^{−x} for layer i ≥ 1, where x
// lies in [x_{i−1}, x_i] up to one step of j (x_i = zigW[i]·2³², x_0 = 0)
// and y in [e^{−x_i}, e^{−x_{i−1}}]. As e^{−x} is convex, it lies above its
// tangent at x_i, e^{−x_i}(1 + x_i − x), and below its chord on the layer;
// a point clearly below the tangent is accepted and one clearly above the
// chord rejected without calling math.Exp, which settles the rest. The
// margins (relative 10⁻⁹ and 10⁻⁶) exceed every rounding error of the
// bounds and of math.Exp (a few ulp, 10⁻¹⁵) and the chord's overshoot for
// an x up to one step (x_i·2⁻³²) left of x_{i−1}, so the answer is exactly
// the one of y < math.Exp(−x): the same draws and the same variates as
// the plain test (TestWedge).
func wedge(i uint8, x, y float64) bool {
	if y < zigF[i]*(1+(zigX[i]-x))*(1-1e-9) {
		return true
	}
	if y > (zigF[i]+zigS[i]*(zigX[i]-x))*(1+1e-6) {
		return false
	}
	return y < math.Exp(-x)
}

// Ziggurat tables for the exponential (Marsaglia & Tsang 2000, zigset):
// zigR is the start of the tail, zigV the common area of the layers.
const (
	zigR = 7.69711747013104972
	zigV = 3.949659822581572e-3
)

var zigK [256]uint32
var zigW, zigF [256]float64

// zigX[i] is layer i's right end x_i (zigX[0] = 0, the left end of layer
// 1), zigS[i] the slope −(e^{−x_i} − e^{−x_{i−1}})/(x_i − x_{i−1}) of
// the chord on layer i ≥ 1: wedge's bounds.
var zigX, zigS [256]float64

func init() {
	const m2 = 1 << 32
	de, te := zigR, zigR
	q := zigV / math.Exp(-de)
	zigK[0] = uint32(de / q * m2)
	zigK[1] = 0
	zigW[0] = q / m2
	zigW[255] = de / m2
	zigF[0] = 1
	zigF[255] = math.Exp(-de)
	for i := 254; i >= 1; i-- {
		de = -math.Log(zigV/de + math.Exp(-de))
		zigK[i+1] = uint32(de / te * m2)
		te = de
		zigF[i] = math.Exp(-de)
		zigW[i] = de / m2
	}
	for i := 1; i < 256; i++ {
		zigX[i] = zigW[i] * m2
		zigS[i] = (zigF[i-1] - zigF[i]) / (zigX[i] - zigX[i-1])
	}
}
