package compare

import (
	"container/heap"
	"context"
	"sync"
)

// figurePool is the one pool every figure's simulator runs and model
// points go through: Workers slots, granted to the waiting call of the
// earliest figure first (then first come, first served), so that figures
// finish in order while later ones fill the slots earlier ones leave
// idle; and a memo, so that work two figures share (the same run with the
// same seed, the same model edge) is done once. Results do not depend on
// the order work is done in.
type figurePool struct {
	mu      sync.Mutex // guards free, waiting, seq
	free    int
	waiting waitHeap
	seq     int

	memoMu sync.Mutex
	memo   map[string]*memoEntry
}

type memoEntry struct {
	ready chan struct{}
	val   any
	err   error
}

func newFigurePool(workers int) *figurePool {
	return &figurePool{free: workers, memo: map[string]*memoEntry{}}
}

// waiter is a call waiting for a slot.
type waiter struct {
	prio, seq int
	ready     chan struct{}
	granted   bool
	index     int // in the heap
}

// waitHeap orders waiters by priority (the figure's index), then arrival
// (container/heap's invariant: h[i] ≤ its children).
type waitHeap []*waiter

func (h waitHeap) Len() int { return len(h) }
func (h waitHeap) Less(i, j int) bool {
	if h[i].prio != h[j].prio {
		return h[i].prio < h[j].prio
	}
	return h[i].seq < h[j].seq
}
func (h waitHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *waitHeap) Push(x any) {
	w := x.(*waiter)
	w.index = len(*h)
	*h = append(*h, w)
}
func (h *waitHeap) Pop() any {
	old := *h
	w := old[len(old)-1]
	*h = old[:len(old)-1]
	return w
}

// acquire waits for a slot, the earliest prio first; it returns ctx's
// error, holding no slot, if ctx is cancelled first.
func (p *figurePool) acquire(ctx context.Context, prio int) error {
	p.mu.Lock()
	if p.free > 0 && len(p.waiting) == 0 {
		p.free--
		p.mu.Unlock()
		return nil
	}
	w := &waiter{prio: prio, seq: p.seq, ready: make(chan struct{})}
	p.seq++
	heap.Push(&p.waiting, w)
	p.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	p.mu.Lock()
	granted := w.granted
	if !granted {
		heap.Remove(&p.waiting, w.index)
	}
	p.mu.Unlock()
	if granted {
		p.release()
	}
	return ctx.Err()
}

// release hands the slot to the first waiter, or frees it.
func (p *figurePool) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.waiting) > 0 {
		w := heap.Pop(&p.waiting).(*waiter)
		w.granted = true
		close(w.ready)
		return
	}
	p.free++
}

// do runs f in a slot of the pool once per key: a second caller with the
// same key waits for the first's result. A call cancelled before its
// result is known is forgotten, so a later caller runs f again. prio is
// the figure's index.
func (p *figurePool) do(ctx context.Context, key string, prio int, f func() (any, error)) (any, error) {
	return p.once(ctx, key, prio, true, f)
}

// once is do, in a slot of the pool if slot is set, else at once (work
// that others wait for, such as a model edge brackets start from, need not
// queue behind hundreds of runs).
func (p *figurePool) once(ctx context.Context, key string, prio int, slot bool, f func() (any, error)) (any, error) {
	p.memoMu.Lock()
	e, ok := p.memo[key]
	if !ok {
		e = &memoEntry{ready: make(chan struct{})}
		p.memo[key] = e
	}
	p.memoMu.Unlock()
	if ok {
		select {
		case <-e.ready:
			return e.val, e.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	switch {
	case ctx.Err() != nil:
		e.err = ctx.Err()
	case !slot:
		e.val, e.err = f()
	case p.acquire(ctx, prio) != nil:
		e.err = ctx.Err()
	default:
		e.val, e.err = f()
		p.release()
	}
	if ctx.Err() != nil && e.err != nil {
		p.memoMu.Lock()
		delete(p.memo, key)
		p.memoMu.Unlock()
	}
	close(e.ready)
	return e.val, e.err
}
