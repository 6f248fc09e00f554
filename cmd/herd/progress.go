package main

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

	"herd/compare"
	"herd/compare/progress"
	"herd/meanfield"
	"herd/sim"
)

// Progress on stderr is package progress's: a Line over a batch of runs
// or points (on a terminal only), Items over edges (--progress), Stages
// over herd figures' figures. This file holds the command line's side:
// the --progress flag and the adapters to sim's and compare's callbacks.

// addProgressFlag defines --progress, with one help text for every command
// that computes edges one by one (herd edge, herd law) and herd figures.
func addProgressFlag(fs *pflag.FlagSet) *string {
	return fs.String("progress", string(progress.Auto), "progress on stderr: auto (a line per edge, or one line over the figures, on a terminal; else a heartbeat every 30 s: a line with the count and the time left, then a line per item at work), always (both), never")
}

// addPointProgressFlag defines herd point's --progress: its terminal
// line is the one line of a batch of points, not a line per item.
func addPointProgressFlag(fs *pflag.FlagSet) *string {
	return fs.String("progress", string(progress.Auto), "progress on stderr: auto (a line counting the points on a terminal, else a heartbeat every 30 s: a line with the count and the time left, then a line per point at work with its maps so far, last board mean and maps in the herd regime towards an aperiodic verdict), always (both), never")
}

// pointProgress is herd point's progress in mode (--progress): the line
// over the batch on a terminal (auto, always) and the heartbeat (auto off
// a terminal, always), whose note on a point at work is the maps it has
// made. labels and costs are the points'.
type pointProgress struct {
	line *progress.Line
	beat *progress.Items
	last []atomic.Pointer[mapPace] // each point's last map and pace
}

// mapPace is a point's last map, when it was made, and the recent time a
// map (a moving average over about the last four maps).
type mapPace struct {
	r   *meanfield.MapReport
	at  time.Time
	per time.Duration
}

func newPointProgress(w io.Writer, term bool, mode string, labels []string, costs []float64) *pointProgress {
	return newAttractorProgress(w, term, mode, "point", "points", labels, costs)
}

// newAttractorProgress is pointProgress for any command whose items are
// attractors of the refresh map (herd point's points, herd hysteresis's
// model points), name and unit naming them in its lines.
func newAttractorProgress(w io.Writer, term bool, mode, name, unit string, labels []string, costs []float64) *pointProgress {
	p := &pointProgress{last: make([]atomic.Pointer[mapPace], len(labels))}
	p.line = progress.NewLine(w, term && mode != string(progress.Never), name, unit)
	beat := progress.Never
	if mode == string(progress.Always) || (mode == string(progress.Auto) && !term) {
		beat = progress.Auto // off a terminal: the heartbeat alone
	}
	p.beat = progress.NewItems(w, false, beat, name, unit, labels, costs)
	return p
}

// begin and end bracket point i's computation for the heartbeat.
func (p *pointProgress) begin(i int) {
	p.last[i].Store(&mapPace{at: time.Now()})
	p.beat.Begin(i)
	p.beat.Live(i, func() string {
		m := p.last[i].Load()
		return mapNote(m.r, m.per)
	})
}

// mapNote is the heartbeat's note on a point at work: its maps so far,
// the last board mean and, from the herd regime on, how far the maps in
// it are from an aperiodic verdict (a herd of heavy-tailed sizes may take
// hours of maps in that regime) and, at the recent time a map (per, 0 if
// unknown), the most time that can take: the run may close an orbit
// sooner, but not later.
func mapNote(r *meanfield.MapReport, per time.Duration) string {
	if r == nil {
		return "0 maps"
	}
	note := fmt.Sprintf("%d maps, board mean %.1f", r.Maps, r.BoardMean)
	if r.HerdRun > 0 {
		done := min(r.HerdRun, r.HerdNeed)
		note += fmt.Sprintf(", %d of the %d maps in the herd regime an aperiodic verdict needs", done, r.HerdNeed)
		if per > 0 && done < r.HerdNeed {
			left := time.Duration(r.HerdNeed-done) * per
			note += fmt.Sprintf(", at most about %v left at %v a map", left.Round(time.Second), per.Round(100*time.Millisecond))
		}
	}
	return note
}

func (p *pointProgress) end(i int) { p.beat.End(i, "done") }

// mapped records a map of point i and the pace of its maps.
func (p *pointProgress) mapped(i int, r meanfield.MapReport) {
	now := time.Now()
	m := &mapPace{r: &r, at: now}
	if prev := p.last[i].Load(); prev != nil {
		d := now.Sub(prev.at)
		m.per = d
		if prev.per > 0 {
			m.per = (3*prev.per + d) / 4
		}
	}
	p.last[i].Store(m)
}

// close ends both reports.
func (p *pointProgress) close() {
	p.beat.Close()
	p.line.Finish()
}

// addHysteresisProgressFlag defines herd hysteresis's --progress.
func addHysteresisProgressFlag(fs *pflag.FlagSet) *string {
	return fs.String("progress", string(progress.Auto), "progress on stderr: auto (a line counting the model points, then the runs, on a terminal, else a heartbeat every 30 s: a line with the count and the time left, then a line per model point at work with its maps so far, last board mean and, in the herd regime, the most time left), always (both), never")
}

// addModelProgressFlag defines herd model's --progress.
func addModelProgressFlag(fs *pflag.FlagSet) *string {
	return fs.String("progress", string(progress.Auto), "progress on stderr: auto (a line counting the points on a terminal, else a heartbeat every 30 s: a line with the count and the time left, then a line per point at work with its maps so far and the most time left at their pace), always (both), never")
}

// mapsProgress is herd model's progress in mode (--progress), as
// pointProgress is herd point's: the line over the batch on a terminal
// and the heartbeat, whose note on a point at work is its maps so far, the
// most it will make and, at the recent pace, the most time that takes.
type mapsProgress struct {
	line *progress.Line
	beat *progress.Items
	last []atomic.Pointer[mapsPace]
}

// mapsPace is a point's maps so far and their most, when the last was
// made, and the recent time a map.
type mapsPace struct {
	maps, most int
	at         time.Time
	per        time.Duration
}

func newMapsProgress(w io.Writer, term bool, mode, name string, labels []string, costs []float64) *mapsProgress {
	p := &mapsProgress{last: make([]atomic.Pointer[mapsPace], len(labels))}
	p.line = progress.NewLine(w, term && mode != string(progress.Never), name, "points")
	beat := progress.Never
	if mode == string(progress.Always) || (mode == string(progress.Auto) && !term) {
		beat = progress.Auto
	}
	p.beat = progress.NewItems(w, false, beat, name, "points", labels, costs)
	return p
}

func (p *mapsProgress) begin(k int) {
	p.last[k].Store(&mapsPace{at: time.Now()})
	p.beat.Begin(k)
	p.beat.Live(k, func() string {
		m := p.last[k].Load()
		return mapsNote(m.maps, m.most, m.per)
	})
}

func (p *mapsProgress) end(k int) { p.beat.End(k, "done") }

// mapped records a map of point k: maps made, most to make.
func (p *mapsProgress) mapped(k, maps, most int) {
	now := time.Now()
	m := &mapsPace{maps: maps, most: most, at: now}
	if prev := p.last[k].Load(); prev != nil {
		d := now.Sub(prev.at)
		m.per = d
		if prev.per > 0 {
			m.per = (3*prev.per + d) / 4
		}
	}
	p.last[k].Store(m)
}

func (p *mapsProgress) close() {
	p.beat.Close()
	p.line.Finish()
}

// mapsNote is the heartbeat's note on a model point at work: its maps so
// far of the most it makes and, at the recent time a map (per, 0 if
// unknown), the most time the rest can take (it may close a cycle sooner,
// never later); a point that makes no maps (a closed form) has no note.
func mapsNote(maps, most int, per time.Duration) string {
	if most == 0 {
		return ""
	}
	note := fmt.Sprintf("%d of at most %d maps", maps, most)
	if per > 0 && maps < most {
		note += fmt.Sprintf(", at most about %v left at %v a map", (time.Duration(most-maps) * per).Round(time.Second), per.Round(time.Millisecond))
	}
	return note
}

// checkProgressMode validates --progress.
func checkProgressMode(mode string) error {
	switch progress.Mode(mode) {
	case progress.Auto, progress.Always, progress.Never:
		return nil
	}
	return usagef("--progress %q: want auto, always or never", mode)
}

// weighRuns weighs p by the costs of simulator runs (their expected
// numbers of jobs) and returns its notifier in sim.RunAllNotify's form.
func weighRuns(p *progress.Line, tasks []sim.Task) func(i int, _ sim.Result, done, total int) {
	c := make([]float64, len(tasks))
	for i, t := range tasks {
		c[i] = compare.RunCost(t.Config)
	}
	p.Weigh(c)
	return func(i int, _ sim.Result, done, total int) { p.Notify(i, done, total) }
}

// figureProgress shows herd figures' progress on w, one job per figure:
// a line rewritten in place on a terminal, else (--progress auto) a
// heartbeat every 30 s, a line per figure at work. exts are the
// extensions of each plot's files (".svg", …, ".csv").
type figureProgress struct {
	*progress.Stages
	exts string
}

func newFigureProgress(w io.Writer, mode string, figs []compare.Figure, exts []string) figureProgress {
	ids := make([]string, len(figs))
	for i, f := range figs {
		ids[i] = f.ID
	}
	return figureProgress{progress.NewStages(w, isTerminal(w), progress.Mode(mode), "figures", "figure", ids), strings.Join(exts, ", ")}
}

// update takes a report from compare.MakeFigures.
func (p figureProgress) update(r compare.FigureProgress) {
	p.Update(progress.Stage{Job: r.Figure, Name: r.Stage, Done: r.Done, Total: r.Total, TotalKnown: r.TotalKnown, Finished: r.Finished})
}

// written reports that figure i's files are written.
func (p figureProgress) written(i int, plots []*compare.FigurePlot) {
	stems := make([]string, len(plots))
	for k, pl := range plots {
		stems[k] = pl.Stem
	}
	p.Written(i, strings.Join(stems, ", ")+": "+p.exts)
}
