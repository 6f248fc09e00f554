package compare

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"testing"

	"herd/sim"
)

// The pool does shared work once: eight callers of one key get one call's
// result; a call cancelled before it ran is forgotten, so the next caller
// runs it.
func TestFigurePoolMemo(t *testing.T) {
	t.Parallel()
	p := newFigurePool(2)
	var calls atomic.Int32
	f := func() (any, error) { calls.Add(1); return 42, nil }
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v, err := p.do(context.Background(), "k", 0, f); err != nil || v.(int) != 42 {
				t.Errorf("do = %v, %v; want 42, nil", v, err)
			}
		}()
	}
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Errorf("f called %d times for one key, want 1", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.do(ctx, "c", 0, f); err == nil {
		t.Error("do with a cancelled context: no error")
	}
	if v, err := p.do(context.Background(), "c", 0, f); err != nil || v.(int) != 42 || calls.Load() != 2 {
		t.Errorf("after a cancelled call: do = %v, %v with %d calls; want 42, nil, 2", v, err, calls.Load())
	}
}

// RunCost is the expected number of jobs, with sim's defaults (100
// servers, load 0.9, horizon 20,000) for fields left zero.
func TestRunCost(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cfg  sim.Config
		want float64
	}{
		{sim.Config{}, 100 * 0.9 * 20000},
		{sim.Config{Servers: 1600, Load: 0.5, Horizon: 1000}, 1600 * 0.5 * 1000},
	} {
		if got := RunCost(c.cfg); got != c.want {
			t.Errorf("RunCost(%+v) = %g, want %g", c.cfg, got, c.want)
		}
	}
}

// T975 against standard t tables (two-sided 95%).
func TestT975(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		runs int
		want float64
	}{{3, 4.303}, {4, 3.182}, {6, 2.571}, {8, 2.365}, {1001, 1.962}} {
		if got := T975(c.runs); math.Abs(got-c.want) > 0.0005 {
			t.Errorf("T975(%d) = %.4f, want %.3f", c.runs, got, c.want)
		}
	}
	if !math.IsNaN(T975(1)) {
		t.Errorf("T975(1) = %v, want NaN", T975(1))
	}
}

// A model line's point with a standard error (an irregular orbit's
// long-run average) gets a 95% bar over its batch means, t(0.975,
// batches − 1)·se, and its se and batch count; the points around it have
// none, and a point with se 0 or fewer than 2 batches gets none.
func TestModelPointBars(t *testing.T) {
	t.Parallel()
	var s FigureSeries
	s.modelPoint(1, 10, 0, 0, "fixed")
	s.lineBreak()
	s.modelPoint(2, 20, 0.5, 8, "aperiodic")
	s.modelPoint(3, 30, 0.5, 1, "one batch")
	s.gap(4, "did not settle")
	if len(s.YErr) != len(s.Y) {
		t.Fatalf("%d bars for %d points", len(s.YErr), len(s.Y))
	}
	// t(0.975, 7) = 2.3646 (standard t tables; TestT975): 0.5 of it.
	if got, want := s.YErr[2], 1.18231; math.Abs(got-want) > 1e-5 {
		t.Errorf("bar of the aperiodic point %.6g, want %.6g", got, want)
	}
	for _, i := range []int{0, 1, 3, 4} {
		if v := s.YErr[i]; v > 0 {
			t.Errorf("point %d has a bar %g, want none", i, v)
		}
	}
	if len(s.SE) != 3 || s.SE[2] != 0.5 || s.Runs[2] != 8 || !math.IsNaN(s.SE[0]) || s.Runs[0] != 0 || s.Runs[1] != 0 {
		t.Errorf("SE %v, Runs %v; want 0.5 and 8 at point 2 only", s.SE, s.Runs)
	}
}

// Every figure has an id, a heading, what it shows and an experiment, and
// the ids are 1, 2, … in order (herd figures --only takes them).
func TestFiguresListed(t *testing.T) {
	t.Parallel()
	for i, f := range Figures() {
		if f.ID != string(rune('1'+i)) || f.Heading == "" || f.About == "" || f.make == nil {
			t.Errorf("figure %d: %+v", i+1, f)
		}
	}
}

// Slots go to the earliest figure first, then first come, first served;
// a waiter cancelled while queued leaves the queue.
func TestFigurePoolOrder(t *testing.T) {
	t.Parallel()
	p := newFigurePool(1)
	if err := p.acquire(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	cctx, cancel := context.WithCancel(context.Background())
	for i, prio := range []int{2, 1, 1, 0, 3} {
		ctx := context.Background()
		if prio == 3 {
			ctx = cctx
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.acquire(ctx, prio); err != nil {
				return
			}
			mu.Lock()
			order = append(order, 10*prio+i)
			mu.Unlock()
			p.release()
		}()
		for { // wait until it is queued, so that arrival order is known
			p.mu.Lock()
			n := len(p.waiting)
			p.mu.Unlock()
			if n == i+1 {
				break
			}
		}
	}
	cancel()
	for { // the cancelled waiter leaves the queue
		p.mu.Lock()
		n := len(p.waiting)
		p.mu.Unlock()
		if n == 4 {
			break
		}
	}
	p.release()
	wg.Wait()
	want := []int{3, 11, 12, 20}
	if len(order) != len(want) {
		t.Fatalf("granted %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("granted %v, want %v", order, want)
		}
	}
	if p.free != 1 {
		t.Errorf("%d slots free at the end, want 1", p.free)
	}
}
