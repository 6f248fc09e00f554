package meanfield

import (
	"strings"
	"testing"
)

// TestHostileInputsReturnErrors: inputs that once panicked inside the map
// (issue 14) come back as errors.
func TestHostileInputsReturnErrors(t *testing.T) {
	t.Parallel()
	// A load of 1e-300 overflowed the windows (slice bounds [-48:]).
	if err := (Refresh{Dispatchers: 5, Load: 1e-300, Period: 10}).Validate(); err == nil || !strings.Contains(err.Error(), "Load") {
		t.Errorf("Load 1e-300: got %v, want an error naming Load", err)
	}
	// T = 1e-300 keeps the board at one row, where the spectrum has no
	// direction ("SumZero needs n ≥ 2").
	_, err := FindAttractor(Refresh{Dispatchers: 5, Load: 0.9, Period: 1e-300}, BoardEmpty(),
		AttractorSettings{MaxIter: 5, Spectrum: true})
	if err == nil || !strings.Contains(err.Error(), "one row") {
		t.Errorf("Period 1e-300 with the spectrum: got %v, want the one-row error", err)
	}
}
