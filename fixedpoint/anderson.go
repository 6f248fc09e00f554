package fixedpoint

import "gonum.org/v1/gonum/mat"

// andersonHistory holds Anderson's histories of Δx and Δf, oldest first,
// at most m of each, recycling their storage.
type andersonHistory struct {
	n, m   int
	dX, dF [][]float64
	spare  [][]float64
	gamma  []float64
	qr     mat.QR
	a      mat.Dense
}

func newAndersonHistory(n, m int) *andersonHistory {
	return &andersonHistory{n: n, m: m, spare: make([][]float64, 0, 2*m+2), gamma: make([]float64, m)}
}

func (h *andersonHistory) take() []float64 {
	if k := len(h.spare); k > 0 {
		v := h.spare[k-1]
		h.spare = h.spare[:k-1]
		return v
	}
	return make([]float64, h.n)
}

// reset clears the histories (a restart).
func (h *andersonHistory) reset() {
	h.spare = append(h.spare, h.dX...)
	h.spare = append(h.spare, h.dF...)
	h.dX, h.dF = h.dX[:0], h.dF[:0]
}

// push appends x − xPrev and fk − fPrev, dropping the oldest pair beyond m.
func (h *andersonHistory) push(x, xPrev, fk, fPrev []float64) {
	dx, df := h.take(), h.take()
	for i := range dx {
		dx[i] = x[i] - xPrev[i]
		df[i] = fk[i] - fPrev[i]
	}
	if len(h.dX) == h.m {
		h.spare = append(h.spare, h.dX[0], h.dF[0])
		h.dX, h.dF = h.dX[1:], h.dF[1:]
	}
	h.dX, h.dF = append(h.dX, dx), append(h.dF, df)
}

// condition factorises the newest columns of ΔF, dropping the oldest
// while ΔF is ill-conditioned (condition number above maxCond), and
// returns the number kept.
func (h *andersonHistory) condition(maxCond float64) int {
	mk := len(h.dX)
	for mk > 0 {
		h.a.Reset()
		h.a.ReuseAs(h.n, mk)
		for j := 0; j < mk; j++ {
			h.a.SetCol(j, h.dF[len(h.dF)-mk+j])
		}
		h.qr.Factorize(&h.a)
		if c := h.qr.Cond(); c <= maxCond {
			break
		}
		mk--
	}
	if mk < len(h.dX) {
		drop := len(h.dX) - mk
		h.spare = append(h.spare, h.dX[:drop]...)
		h.spare = append(h.spare, h.dF[:drop]...)
		h.dX, h.dF = h.dX[drop:], h.dF[drop:]
	}
	return mk
}

// step moves x to the next iterate: the plain step x_k + βf_k minus the
// least-squares combination Σ_j γ_j (Δx_j + βΔf_j) with γ minimising
// ‖f_k − ΔF γ‖₂. It reports whether the step was accelerated.
func (h *andersonHistory) step(x, fk []float64, beta, maxCond float64) bool {
	mk := h.condition(maxCond)
	// Plain part x_k + βf_k.
	for i := range x {
		x[i] += beta * fk[i]
	}
	if mk == 0 {
		return false
	}
	gv := mat.NewVecDense(mk, h.gamma[:mk])
	if err := h.qr.SolveVecTo(gv, false, mat.NewVecDense(h.n, fk)); err != nil {
		h.reset()
		return false
	}
	// x_{k+1} −= Σ_j γ_j (Δx_j + βΔf_j).
	for j := 0; j < mk; j++ {
		gj := h.gamma[j]
		dx, df := h.dX[j], h.dF[j]
		for i := range x {
			x[i] -= gj * (dx[i] + beta*df[i])
		}
	}
	return true
}

// AndersonMixer is Anderson acceleration (Anderson 1965) in the form of
// Walker & Ni (2011), Algorithm AA, with mixing β = 1, for a caller that
// drives the iteration itself and applies its own safeguards. With f_k =
// F(x_k) − x_k, Δf_i = f_{i+1} − f_i, Δx_i = x_{i+1} − x_i and the m_k =
// min(m, k) most recent differences as the columns of ΔF_k and ΔX_k,
//
//	γ_k     = argmin_γ ‖f_k − ΔF_k γ‖₂,
//	x_{k+1} = x_k + f_k − (ΔX_k + ΔF_k) γ_k = F(x_k) − (ΔX_k + ΔF_k) γ_k.
//
// The least-squares problem is solved by Householder QR (gonum/mat). The
// safeguard follows Walker & Ni §4: while the condition number of ΔF_k
// exceeds maxCond, the oldest column is dropped; a least-squares solve
// that fails clears the history and takes the plain step x_{k+1} =
// F(x_k). The vectors have a fixed length n.
type AndersonMixer struct {
	h            *andersonHistory
	xPrev, fPrev []float64
	fk           []float64
	have         bool
	maxCond      float64
}

// NewAndersonMixer returns a mixer for vectors of length n keeping depth
// past differences (at least 1), with condition bound maxCond > 1.
func NewAndersonMixer(n, depth int, maxCond float64) *AndersonMixer {
	depth = max(min(depth, n), 1)
	return &AndersonMixer{h: newAndersonHistory(n, depth), xPrev: make([]float64, n), fPrev: make([]float64, n),
		fk: make([]float64, n), maxCond: maxCond}
}

// Len returns the length of the vectors.
func (a *AndersonMixer) Len() int { return a.h.n }

// Step overwrites x (x_k) with the next iterate, given g = F(x_k), and
// reports whether the step was accelerated (false: x = g, the plain step).
func (a *AndersonMixer) Step(x, g []float64) bool {
	for i := range a.fk {
		a.fk[i] = g[i] - x[i]
	}
	if a.have {
		a.h.push(x, a.xPrev, a.fk, a.fPrev)
	}
	copy(a.xPrev, x)
	copy(a.fPrev, a.fk)
	a.have = true
	return a.h.step(x, a.fk, 1, a.maxCond)
}
