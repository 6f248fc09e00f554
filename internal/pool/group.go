package pool

import "sync"

// Group is the pool for event-driven work: a fixed set of workers that
// run the tasks handed to them (Go) and deliver what the tasks report, in
// order, to the caller (Next), who decides on its own goroutine, from each
// event, what to start next. The bracket's search starts, pauses and
// resumes its replications this way. A task reports any number of events
// as it goes and returns its last one; reporting never blocks, so a worker
// is free again as soon as its task returns, whether or not the caller has
// read the events yet. Go, Next and Close belong to the caller's goroutine
// (one caller per Group).
type Group[E any] struct {
	tasks   chan func(report func(E)) E
	wait    func()
	mu      sync.Mutex
	arrived sync.Cond // signalled when an event is queued
	queue   []event[E]
	pending int // tasks handed to Go whose last event Next has not returned
}

// event is one report of a task; last marks its return value.
type event[E any] struct {
	e    E
	last bool
}

// NewGroup starts a Group of slots workers (at least one), so at most
// slots of its tasks ever run at once. Close ends them.
func NewGroup[E any](slots int) *Group[E] {
	g := &Group[E]{tasks: make(chan func(func(E)) E)}
	g.arrived.L = &g.mu
	g.wait = start(max(slots, 1), func(int) {
		report := func(e E) { g.push(event[E]{e: e}) }
		for f := range g.tasks {
			g.push(event[E]{e: f(report), last: true})
		}
	})
	return g
}

// push queues an event for Next; it never waits for the caller.
func (g *Group[E]) push(ev event[E]) {
	g.mu.Lock()
	g.queue = append(g.queue, ev)
	g.mu.Unlock()
	g.arrived.Signal()
}

// Go hands f to an idle worker, waiting for one while every worker is
// busy: a caller that keeps fewer than slots tasks under way (started,
// last event not yet taken by Next) never waits longer than a worker
// takes to return from the task whose last event it has read.
func (g *Group[E]) Go(f func(report func(E)) E) {
	g.pending++
	g.tasks <- f
}

// Next returns the next event of the tasks under way, waiting for one:
// each task's events in the order it reported them, its return value
// last. It panics when no task is under way, as it would wait forever.
func (g *Group[E]) Next() E {
	if g.pending == 0 {
		panic("pool: Group.Next with no task under way")
	}
	g.mu.Lock()
	for len(g.queue) == 0 {
		g.arrived.Wait()
	}
	ev := g.queue[0]
	g.queue = g.queue[1:]
	g.mu.Unlock()
	if ev.last {
		g.pending--
	}
	return ev.e
}

// Close ends the workers once the tasks still running have returned;
// their events are dropped. The Group takes no task after it.
func (g *Group[E]) Close() {
	close(g.tasks)
	g.wait()
}
