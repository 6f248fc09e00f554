package pool

import (
	"sync/atomic"
	"testing"
	"time"
)

// msg is a test task's report: which task, which of its reports, and
// whether it is the task's return value.
type msg struct {
	task, seq int
	last      bool
}

// TestGroupEachTaskOnceBounded hands a Group more tasks than it has slots,
// the caller keeping only slots under way and starting one more on each
// task's last event, as the bracket does: every task must run exactly
// once, never more than slots at a time, and its reports must arrive in
// its order, its return value last.
func TestGroupEachTaskOnceBounded(t *testing.T) {
	for _, slots := range []int{1, 2, 4} {
		const n, reports = 40, 3
		g := NewGroup[msg](slots)
		var running, most atomic.Int64
		runs := make([]atomic.Int64, n)
		task := func(i int) func(func(msg)) msg {
			return func(report func(msg)) msg {
				runs[i].Add(1)
				now := running.Add(1)
				for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
				}
				for s := range reports {
					report(msg{task: i, seq: s})
					time.Sleep(50 * time.Microsecond)
				}
				running.Add(-1)
				return msg{task: i, seq: reports, last: true}
			}
		}
		next, under := 0, 0
		seen := make([]int, n) // reports received per task
		for next < n || under > 0 {
			for ; next < n && under < slots; next++ {
				g.Go(task(next))
				under++
			}
			m := g.Next()
			if m.seq != seen[m.task] {
				t.Fatalf("slots %d: task %d's report %d came as its number %d", slots, m.task, m.seq, seen[m.task])
			}
			seen[m.task]++
			if m.last != (m.seq == reports) {
				t.Fatalf("slots %d: task %d's report %d has last = %v", slots, m.task, m.seq, m.last)
			}
			if m.last {
				under--
			}
		}
		g.Close()
		for i := range runs {
			if r := runs[i].Load(); r != 1 || seen[i] != reports+1 {
				t.Errorf("slots %d: task %d ran %d times, %d reports received", slots, i, r, seen[i])
			}
		}
		if m := most.Load(); m > int64(slots) {
			t.Errorf("slots %d: %d tasks ran at once", slots, m)
		}
	}
}

// TestGroupBoundIsTheWorkers hands a Group of 3 slots 9 tasks at once,
// the caller reading no event until all are handed over. The first three
// must run together (each waits for the other two) and then hold their
// workers for a while: Go must wait for a free worker rather than start
// a fourth task meanwhile.
func TestGroupBoundIsTheWorkers(t *testing.T) {
	const slots, n = 3, 9
	g := NewGroup[int](slots)
	defer g.Close()
	var arrived atomic.Int64
	all, hold := make(chan struct{}), make(chan struct{})
	time.AfterFunc(100*time.Millisecond, func() { close(hold) })
	for i := range n {
		g.Go(func(func(int)) int {
			if i >= slots {
				select {
				case <-hold:
				default:
					t.Errorf("task %d started while the first %d held every worker", i, slots)
				}
				return i
			}
			if arrived.Add(1) == slots {
				close(all)
			}
			select {
			case <-all:
			case <-time.After(10 * time.Second):
				t.Errorf("task %d: the first %d tasks did not all run at once", i, slots)
			}
			<-hold
			return i
		})
	}
	got := map[int]bool{}
	for range n {
		got[g.Next()] = true
	}
	if len(got) != n {
		t.Errorf("%d distinct tasks returned, want %d", len(got), n)
	}
}

// TestGroupCloseWaits checks that Close returns only once a task still
// running has returned, so no worker outlives its Group.
func TestGroupCloseWaits(t *testing.T) {
	g := NewGroup[int](2)
	var done atomic.Bool
	started := make(chan struct{})
	g.Go(func(func(int)) int {
		close(started)
		time.Sleep(20 * time.Millisecond)
		done.Store(true)
		return 0
	})
	<-started
	g.Close()
	if !done.Load() {
		t.Error("Close returned while a task was running")
	}
}

// TestGroupNextWithNothingUnderWay checks that Next panics, rather than
// wait forever, when every task's last event has been taken.
func TestGroupNextWithNothingUnderWay(t *testing.T) {
	g := NewGroup[int](1)
	defer g.Close()
	g.Go(func(report func(int)) int { report(1); return 2 })
	if a, b := g.Next(), g.Next(); a != 1 || b != 2 {
		t.Fatalf("events %d, %d, want 1, 2", a, b)
	}
	defer func() {
		if recover() == nil {
			t.Error("Next with no task under way did not panic")
		}
	}()
	g.Next()
}
