package compare

import (
	"math"
	"strings"
	"testing"
)

// The expansion recovers a quadratic in 1 − λ exactly from its limit and
// two loads, and its held-out miss is then 0; a cubic term shows up as the
// held-out miss and in the error estimate; no limit edge, no expansion; a
// missing exact edge is an error.
func TestEdgeExpansion(t *testing.T) {
	t.Parallel()
	f := func(load float64, c3 float64) float64 { // x* = 2, c₁ = −0.5, c₂ = 10
		h := 1 - load
		return 2 - 0.5*h + 10*h*h + c3*h*h*h
	}
	var exact [3]float64
	for i, l := range ExpansionLoads {
		exact[i] = f(l, 0)
	}
	e, err := NewEdgeExpansion(5, MapLimitResult{Exists: true, Value: 2, Err: 0.001}, exact)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(e.C1+0.5) > 1e-9 || math.Abs(e.C2-10) > 1e-7 || e.HoldOutErr > 1e-12 {
		t.Errorf("quadratic: c₁ = %v, c₂ = %v, held-out miss %v; want −0.5, 10, 0", e.C1, e.C2, e.HoldOutErr)
	}
	if got, want := e.At(0.999), f(0.999, 0); math.Abs(got-want) > 1e-12 {
		t.Errorf("At(0.999) = %v, want %v", got, want)
	}
	// The last term at λ = 0.99 is 10·10⁻⁴ = 0.001.
	if got, want := e.Err(0.99), math.Hypot(0.001, 0.001); math.Abs(got-want) > 1e-12 {
		t.Errorf("Err(0.99) = %v, want the last term and x*'s error in quadrature, %v", got, want)
	}
	// A cubic term of 50·h³: at the held-out λ = 0.97 the quadratic fit
	// misses it by 50·h(h − h₁)(h − h₂) = 50·0.03·(−0.07)·(−0.02) = 0.0021.
	for i, l := range ExpansionLoads {
		exact[i] = f(l, 50)
	}
	e, err = NewEdgeExpansion(5, MapLimitResult{Exists: true, Value: 2, Err: 0.001}, exact)
	if err != nil {
		t.Fatal(err)
	}
	// At λ = 0.999 the last term is tiny and the held-out miss rules.
	if math.Abs(e.HoldOutErr-0.0021) > 1e-9 || math.Abs(e.Err(0.999)-math.Hypot(0.0021, 0.001)) > 1e-9 {
		t.Errorf("cubic: held-out miss %v, error %v; want 0.0021 and %v", e.HoldOutErr, e.Err(0.999), math.Hypot(0.0021, 0.001))
	}
	if e, err := NewEdgeExpansion(2, MapLimitResult{Value: math.NaN(), Err: math.NaN()}, exact); err != nil || e.Exists || !math.IsNaN(e.At(0.999)) || !strings.Contains(e.String(), "no edge") {
		t.Errorf("no limit edge: %+v, %v; want no expansion", e, err)
	}
	exact[1] = math.NaN()
	if _, err := NewEdgeExpansion(3, MapLimitResult{Exists: true, Value: 1, Err: 0.001}, exact); err == nil || !strings.Contains(err.Error(), "no exact edge at λ = 0.95") {
		t.Errorf("a missing exact edge: err %v", err)
	}
}
