package meanfield

import "math"

// windowWalk is the water-level window bookkeeping of the package doc, §2,
// that the exponential map (refresh.go) and the phase-type map
// (phaserefresh.go) share: τ_0 = 0, τ_{v+1} = τ_v + W_v with W_v = k F(v)/λ
// (F = 1 past the top of the board), windows run until the period T cuts one.
type windowWalk struct {
	k            int
	load, period float64
	cum          []float64 // F(v) for v ≤ top; cum[top] = 1
	top          int       // highest board value
	nwin, nfar   int       // windows begun before T; the full ones past the top
}

// windowLen returns W_v = k F(v)/λ, with F = 1 past the top of the board.
func (ws *windowWalk) windowLen(v int) float64 {
	f := 1.0
	if v < ws.top {
		f = ws.cum[v]
	}
	return float64(ws.k) * f / ws.load
}

// count counts the windows begun before T (nwin) and the full ones past the
// top of the board (nfar), and returns the per-window truncation budget
// tol/(4·(nwin + 1)).
func (ws *windowWalk) count(tol float64) float64 {
	ws.nwin, ws.nfar = 0, 0
	tau := 0.0
	for v := 0; ; v++ {
		w := ws.windowLen(v)
		ws.nwin++
		if tau+w > ws.period {
			break
		}
		if v >= ws.top {
			ws.nfar++
		}
		tau += w
	}
	return tol / (4 * float64(ws.nwin+1))
}

// walk runs the windows in order. For each v it calls enter(v, τ_v) (class
// v joins the water) and then, for a window of nonzero length w,
// piece(v, τ_v, w, l, cut) with l = w for a full window and l = T − τ_v
// for the window T cuts (cut = true), which is the last: walk fills res's
// Window, Windows, CutPhase and KinkDistance from it and returns its v and
// the sum of the integrals piece returned. A false from enter or piece
// stops the walk (ok = false).
func (ws *windowWalk) walk(res *RefreshResult, enter func(v int, tau float64) bool, piece func(v int, tau, w, l float64, cut bool) (float64, bool)) (v int, integral float64, ok bool) {
	tau := 0.0
	for v = 0; ; v++ {
		if !enter(v, tau) {
			return v, integral, false
		}
		w := ws.windowLen(v)
		if w == 0 {
			continue // F(v) = 0: no server is in the water yet
		}
		if tau+w <= ws.period {
			in, ok := piece(v, tau, w, w, false)
			integral += in
			if !ok {
				return v, integral, false
			}
			tau += w
			continue
		}
		s := ws.period - tau
		in, ok := piece(v, tau, w, s, true)
		integral += in
		res.Window = v
		res.Windows = v + 1
		res.CutPhase = s / w
		res.KinkDistance = math.Min(s, w-s)
		return v, integral, ok
	}
}
