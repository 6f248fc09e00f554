package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Stage is one job's report to Stages: which job, the stage it is at, and
// how much of the stage's cost is done of its total (TotalKnown false:
// the total grows as the job goes, Done counts what is done so far).
type Stage struct {
	Job         int
	Name        string
	Done, Total float64
	TotalKnown  bool
	Finished    bool // the job's computation is done (its output follows)
}

// Stages shows one line over several jobs at work at once, rewritten in
// place at most four times a second (on a terminal): the jobs done out of
// all, the time elapsed and, for each job at work, its stage, the share
// done by cost and an estimate of its time left; and a line per job
// written. Where the line cannot be rewritten (a log), the same line is
// printed as a heartbeat every 30 s. Mode Auto gives the rewritten line
// on a terminal and the heartbeat otherwise; Always both; Never nothing.
// Jobs are named "item ID" (figure 3) and counted as name (figures).
type Stages struct {
	mu         sync.Mutex
	w          io.Writer // nil: nothing shown
	live       bool      // the line is rewritten in place (a terminal)
	stop       chan struct{}
	wg         sync.WaitGroup
	name, item string
	ids        []string
	start      time.Time
	last       time.Time
	shown      bool // a progress line is on the screen
	done       int
	stage      []Stage     // latest report per job
	stageAt    []time.Time // when each job's stage began
	now        func() time.Time
}

// NewStages starts reporting jobs ids on w in mode (term says whether w
// is a terminal); the line reads "name: d of n done, …; item ID: stage …".
// Close stops it.
func NewStages(w io.Writer, term bool, mode Mode, name, item string, ids []string) *Stages {
	p := &Stages{name: name, item: item, ids: ids, start: time.Now(), now: time.Now,
		stage: make([]Stage, len(ids)), stageAt: make([]time.Time, len(ids))}
	beat := false
	switch mode {
	case Always:
		p.live, beat = term, true
	case Auto:
		p.live, beat = term, !term
	}
	if p.live || beat {
		p.w = w
	}
	if beat {
		p.stop = startBeat(&p.wg, p.heartbeat)
	}
	return p
}

// heartbeat prints the progress line as a line of its own.
func (p *Stages) heartbeat() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
	fmt.Fprintln(p.w, p.line(p.now()))
}

// Update takes a job's report.
func (p *Stages) Update(r Stage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if p.stage[r.Job].Name != r.Name {
		p.stageAt[r.Job] = now
	}
	p.stage[r.Job] = r
	if !p.live || now.Sub(p.last) < 250*time.Millisecond {
		return
	}
	p.last = now
	p.shown = true
	fmt.Fprintf(p.w, "\r%s\x1b[K", p.line(now))
}

// line is the progress line at now, cut to 200 characters.
func (p *Stages) line(now time.Time) string {
	parts := []string{fmt.Sprintf("%s: %d of %d done, %s elapsed", p.name, p.done, len(p.ids), now.Sub(p.start).Round(time.Second))}
	for i, r := range p.stage {
		if r.Name == "" || r.Finished {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s: %s", p.item, p.ids[i], stageText(r, now.Sub(p.stageAt[i]))))
	}
	s := strings.Join(parts, "; ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}

// stageText describes a stage that has run for el: its share done by cost
// and the time left, estimated as el·(total − done)/done; a stage whose
// total grows (a bracket's search) gets no estimate, only its count.
func stageText(r Stage, el time.Duration) string {
	if !r.TotalKnown {
		return fmt.Sprintf("%s, %d runs so far (the total grows as the search goes)", r.Name, int(r.Done))
	}
	if r.Done <= 0 || r.Total <= 0 {
		return r.Name + " starting"
	}
	frac := r.Done / r.Total
	if frac >= 1 {
		return fmt.Sprintf("%s done", r.Name)
	}
	left := time.Duration(float64(el) * (r.Total - r.Done) / r.Done)
	return fmt.Sprintf("%s %.0f%% by cost, about %s left", r.Name, 100*frac, left.Round(time.Second))
}

// Written reports that job i's output is written, what saying which
// ("fig3-round-robin: .svg, .png, .csv").
func (p *Stages) Written(i int, what string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.stage[i].Finished = true
	if !p.live {
		return // a heartbeat reports the count
	}
	now := p.now()
	fmt.Fprintf(p.w, "\r\x1b[K%s: %s %s written (%s); %d of %d %s done, %s elapsed\n",
		p.name, p.item, p.ids[i], what, p.done, len(p.ids), p.name, now.Sub(p.start).Round(time.Second))
	p.shown = false
}

// Close ends the progress line and stops the heartbeat; it may be called
// more than once.
func (p *Stages) Close() {
	if p.stop != nil {
		select {
		case <-p.stop:
		default:
			close(p.stop)
		}
		p.wg.Wait()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w != nil && p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}
