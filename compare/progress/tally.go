package progress

import "sync"

// Tally reports one job of a Stages through its stages in turn, adding
// up the cost done of each (herd plan's single job: its model, its edge,
// the changes, the simulator's runs weighed by their cost, the bracket
// whose total grows). It is safe for concurrent use.
type Tally struct {
	mu          sync.Mutex
	p           *Stages
	job         int
	name        string
	done, total float64
}

// NewTally reports job of p.
func NewTally(p *Stages, job int) *Tally { return &Tally{p: p, job: job} }

// Stage starts the stage name, whose total is not known yet.
func (t *Tally) Stage(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.name, t.done, t.total = name, 0, 0
	t.p.Update(Stage{Job: t.job, Name: name})
}

// Weigh gives the stage its work: the costs of its items, none done.
func (t *Tally) Weigh(costs []float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done, t.total = 0, 0
	for _, c := range costs {
		t.total += c
	}
	t.p.Update(Stage{Job: t.job, Name: t.name, Total: t.total, TotalKnown: true})
}

// Done reports an item of cost c done.
func (t *Tally) Done(c float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done += c
	t.p.Update(Stage{Job: t.job, Name: t.name, Done: t.done, Total: t.total, TotalKnown: true})
}

// Growing reports a stage whose total grows as it goes: done of the
// total known so far.
func (t *Tally) Growing(done, total int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.p.Update(Stage{Job: t.job, Name: t.name, Done: float64(done), Total: float64(total)})
}

// Finish reports the job finished.
func (t *Tally) Finish() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.p.Update(Stage{Job: t.job, Name: t.name, Finished: true})
}
