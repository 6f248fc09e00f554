package compare

import (
	"context"
	"slices"
	"testing"
)

// NewPool runs every call, its results by index whatever the workers, and
// notifies each finished call serially with the count so far; once ctx is
// cancelled no call starts.
func TestNewPool(t *testing.T) {
	t.Parallel()
	for _, workers := range []int{1, 3} {
		got := make([]int, 5)
		var counts []int
		done := NewPool(context.Background(), workers, func(i, done, n int) {
			if n != 5 {
				t.Errorf("notify n = %d, want 5", n)
			}
			counts = append(counts, done)
		})(5, func(i int) { got[i] = i * i })
		if !slices.Equal(got, []int{0, 1, 4, 9, 16}) || slices.Contains(done, false) || !slices.Equal(counts, []int{1, 2, 3, 4, 5}) {
			t.Errorf("%d workers: results %v, done %v, counts %v", workers, got, done, counts)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	if done := NewPool(ctx, 2, nil)(3, func(int) { ran = true }); ran || slices.Contains(done, true) {
		t.Errorf("cancelled: ran %t, done %v; want nothing run", ran, done)
	}
}
