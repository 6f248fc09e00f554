package compare

import (
	"math"
	"testing"

	"herd/sim"
)

// The verdict rules, on made-up numbers: they must be able to fail.
func TestVerdictRules(t *testing.T) {
	t.Parallel()
	if r := exact("2.614", 2.614, 0.0005, 2.61406); r.Verdict != Pass {
		t.Errorf("2.61406 vs 2.614: %v", r.Verdict)
	}
	if r := exact("2.614", 2.614, 0.0005, 2.6146); r.Verdict != Fail {
		t.Errorf("2.6146 vs 2.614: %v", r.Verdict)
	}
	s := sim.Stat{Mean: 10.3, SE: 0.05, N: 8}
	if r := againstReference(blank(), s, 10, 0, ""); r.Verdict != Fail || math.Abs(r.Z-6) > 1e-9 {
		t.Errorf("10.3 ± 0.05 vs 10: %v, z %v", r.Verdict, r.Z)
	}
	if r := againstReference(blank(), s, 10, 0.2, ""); r.Verdict != Pass {
		t.Errorf("10.3 ± 0.05 vs 10 with bias 0.2: %v", r.Verdict)
	}
	if r := againstPublished("10.1–10.2", 10.1, 10.2, s); r.Verdict != Pass || math.Abs(r.Z-2) > 1e-9 {
		t.Errorf("10.3 ± 0.05 vs [10.1, 10.2] (2 s.e. out): %v, z %v", r.Verdict, r.Z)
	}
	tight := sim.Stat{Mean: 10.3, SE: 0.01, N: 8}
	if r := againstPublished("10.1–10.2", 10.1, 10.2, tight); r.Verdict != Fail || math.Abs(r.Z-10) > 1e-6 {
		t.Errorf("10.3 ± 0.05 vs [10.1, 10.2]: %v, z %v", r.Verdict, r.Z)
	}
	if r := againstPublished("10.1–10.4", 10.1, 10.4, s); r.Verdict != Pass || r.Z != 0 {
		t.Errorf("10.3 ± 0.05 vs [10.1, 10.4]: %v, z %v", r.Verdict, r.Z)
	}
}
