package main

import (
	"sync"

	"herd/compare"
	"herd/compare/progress"
)

// planProgress shows herd plan's stage on stderr (progress.Stages, one
// job): the model, its edge, the changes, then the simulator's runs with
// the share of their cost done and the time left, then the bracket,
// whose total grows as it goes.
type planProgress struct {
	mu          sync.Mutex
	p           *progress.Stages
	stageName   string
	done, total float64
}

func newPlanProgress(e *env, mode string) *planProgress {
	return &planProgress{p: progress.NewStages(e.stderr, isTerminal(e.stderr), progress.Mode(mode), "plan", "fleet", []string{"plan"})}
}

// stage starts stage i of compare.PlanStages, whose total is not known.
func (p *planProgress) stage(i int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stageName, p.done, p.total = compare.PlanStages[i], 0, 0
	p.p.Update(progress.Stage{Name: p.stageName})
}

// weigh gives the stage its work: the costs of its runs.
func (p *planProgress) weigh(costs []float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.total = 0, 0
	for _, c := range costs {
		p.total += c
	}
	p.p.Update(progress.Stage{Name: p.stageName, Total: p.total, TotalKnown: true})
}

// doneCost reports a run of cost c finished.
func (p *planProgress) doneCost(c float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += c
	p.p.Update(progress.Stage{Name: p.stageName, Done: p.done, Total: p.total, TotalKnown: true})
}

// growing reports a stage whose total grows (the bracket's runs).
func (p *planProgress) growing(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.p.Update(progress.Stage{Name: p.stageName, Done: float64(done), Total: float64(total)})
}

func (p *planProgress) close() {
	p.mu.Lock()
	p.p.Update(progress.Stage{Name: p.stageName, Finished: true})
	p.mu.Unlock()
	p.p.Close()
}
