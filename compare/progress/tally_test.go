package progress

import (
	"bytes"
	"testing"
)

// A Tally reports its job's stage to Stages: a stage's total unknown
// until weighed, the cost done adding up, a growing total as counts, and
// the job finished at the end.
func TestTally(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	p := NewStages(&b, false, Never, "plan", "fleet", []string{"plan"})
	defer p.Close()
	tl := NewTally(p, 0)
	steps := []struct {
		do   func()
		want Stage
	}{
		{func() { tl.Stage("model") }, Stage{Name: "model"}},
		{func() { tl.Stage("simulator") }, Stage{Name: "simulator"}},
		{func() { tl.Weigh([]float64{1, 3}) }, Stage{Name: "simulator", Total: 4, TotalKnown: true}},
		{func() { tl.Done(3) }, Stage{Name: "simulator", Done: 3, Total: 4, TotalKnown: true}},
		{func() { tl.Stage("bracket"); tl.Growing(2, 5) }, Stage{Name: "bracket", Done: 2, Total: 5}},
		{func() { tl.Finish() }, Stage{Name: "bracket", Finished: true}},
	}
	for i, s := range steps {
		s.do()
		if got := p.stage[0]; got != s.want {
			t.Errorf("step %d: %+v, want %+v", i, got, s.want)
		}
	}
	if p.past[0] != 3 { // the simulator's 3 of cost done stay done
		t.Errorf("past cost %v, want 3", p.past[0])
	}
}
