package main

import (
	"fmt"
	"io"
	"strings"
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
	return progressFlag(fs, "a line per edge, or one line over the figures, on a terminal; else a heartbeat every 30 s: a line with the count and the time left, then a line per item at work")
}

// addPointProgressFlag defines herd point's --progress: its terminal
// line is the one line of a batch of points, not a line per item.
func addPointProgressFlag(fs *pflag.FlagSet) *string {
	return progressFlag(fs, "a line counting the points on a terminal, else a heartbeat every 30 s: a line with the count and the time left, then a line per point at work with its maps so far, last board mean and maps in the herd regime towards an aperiodic verdict")
}

// mapProgress is the progress in mode (--progress) of a batch of items
// that each make maps (herd point's points, herd hysteresis's model
// points, herd model's periodic-update points): progress.Paced, whose
// note on an item at work (note) reads its last report R and the recent
// time a map. labels and costs are the items'.
type mapProgress[R any] struct {
	*progress.Paced[R]
	line *progress.Line
	beat *progress.Items
}

func newMapProgress[R any](w io.Writer, term bool, mode, name, unit string, labels []string, costs []float64, note func(*R, time.Duration) string) *mapProgress[R] {
	p := progress.NewPaced(w, term, progress.Mode(mode), name, unit, labels, costs, note)
	return &mapProgress[R]{p, p.Line, p.Beat}
}

// pointProgress is the progress of attractor runs, with mapNote.
type pointProgress struct {
	*mapProgress[meanfield.MapReport]
}

func newPointProgress(w io.Writer, term bool, mode string, labels []string, costs []float64) *pointProgress {
	return newAttractorProgress(w, term, mode, "point", "points", labels, costs)
}

// newAttractorProgress is pointProgress for any command whose items are
// attractors of the refresh map (herd point's points, herd hysteresis's
// model points), name and unit naming them in its lines.
func newAttractorProgress(w io.Writer, term bool, mode, name, unit string, labels []string, costs []float64) *pointProgress {
	return &pointProgress{newMapProgress(w, term, mode, name, unit, labels, costs, mapNote)}
}

// begin and end bracket item i's computation for the heartbeat.
func (p *mapProgress[R]) begin(i int) { p.Begin(i) }
func (p *mapProgress[R]) end(i int)   { p.End(i) }

// mapped records a map of attractor run i.
func (p *pointProgress) mapped(i int, r meanfield.MapReport) { p.Report(i, r) }

// close ends both reports.
func (p *mapProgress[R]) close() { p.Close() }

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

// addHysteresisProgressFlag defines herd hysteresis's --progress.
func addHysteresisProgressFlag(fs *pflag.FlagSet) *string {
	return progressFlag(fs, "a line counting the model points, then the runs, on a terminal, else a heartbeat every 30 s: a line with the count and the time left, then a line per model point at work with its maps so far, last board mean and, in the herd regime, the most time left")
}

// addModelProgressFlag defines herd model's --progress.
func addModelProgressFlag(fs *pflag.FlagSet) *string {
	return progressFlag(fs, "a line counting the points on a terminal, else a heartbeat every 30 s: a line with the count and the time left, then a line per point at work with its maps so far and the most time left at their pace")
}

// modelMaps is a periodic-update model point's report on a map: the maps
// made and the most it will make.
type modelMaps struct{ maps, most int }

// mapsProgress is herd model's progress, with mapsNote.
type mapsProgress struct {
	*mapProgress[modelMaps]
}

func newMapsProgress(w io.Writer, term bool, mode, name string, labels []string, costs []float64) *mapsProgress {
	return &mapsProgress{newMapProgress(w, term, mode, name, "points", labels, costs, func(r *modelMaps, per time.Duration) string {
		if r == nil {
			return ""
		}
		return mapsNote(r.maps, r.most, per)
	})}
}

// mapped records a map of model point k: maps made, most to make.
func (p *mapsProgress) mapped(k, maps, most int) { p.Report(k, modelMaps{maps, most}) }

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
	p.Weigh(compare.RunCosts(tasks))
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

// addBracketProgressFlag defines herd bracket's and herd scaling's
// --progress: a bracket bisects, so its runs are not known in advance and
// its heartbeat's estimate is for the runs queued so far.
func addBracketProgressFlag(fs *pflag.FlagSet) *string {
	return progressFlag(fs, "a line per bracket counting its runs on a terminal, else a heartbeat every 30 s: a line with the bracket's N, its runs done and queued, the time elapsed and an estimate for the runs queued, which the search may follow with more, then a line naming which bracket of --servers is at work; the model's edge, when computed, as herd edge shows it; herd scaling --predict's predictions each a line on a terminal, else in the heartbeat with the N at work and the refresh periods its runs have simulated")
}

// bracketProgress is the progress of brackets done one N after another
// (set), in mode (--progress): a line per bracket on w, Growing with its
// runs (a progress.Line in mode), whose heartbeat's note names the
// bracket at work among set's; and, on the terminal or in a log that had
// a heartbeat of the bracket, a closing line with its runs and time.
type bracketProgress struct {
	w     io.Writer
	term  bool
	mode  progress.Mode
	set   []compare.BracketSettings
	at    int // index in set of the bracket at work (−1 before the first)
	first time.Time
	start time.Time
	line  *progress.Line
}

func newBracketProgress(w io.Writer, term bool, mode string, set []compare.BracketSettings) *bracketProgress {
	return &bracketProgress{w: w, term: term, mode: progress.Mode(mode), set: set, at: -1}
}

// begin starts the line of bracket s (BracketsHooks.Begin); s is the next
// setting of set at its N (a shard skips those it has no run of).
func (p *bracketProgress) begin(s compare.BracketSettings) func(done, total int) {
	for i := p.at + 1; i < len(p.set); i++ {
		if p.set[i].Servers == s.Servers {
			p.at = i
			break
		}
	}
	p.start = time.Now()
	if p.first.IsZero() {
		p.first = p.start
	}
	p.line = progress.NewLineMode(p.w, p.term, p.mode, fmt.Sprintf("bracket N=%d", s.Servers), "runs", p.note)
	start := p.start
	return func(done, total int) { p.line.Growing(done, total, start) }
}

// note is the heartbeat's line on the bracket at work: which of the
// brackets it is, and the time since the first began (none for one N).
func (p *bracketProgress) note() string {
	if len(p.set) < 2 {
		return ""
	}
	ns := make([]string, len(p.set))
	for i, s := range p.set {
		ns[i] = fmt.Sprint(s.Servers)
	}
	return fmt.Sprintf("bracket %d of %d (N = %s), %s since the first began", p.at+1, len(p.set), strings.Join(ns, ", "),
		time.Since(p.first).Round(time.Second))
}

// end closes the line of bracket r (BracketsHooks.End), with a closing
// line where the bracket was shown: on the terminal, or in a log that had
// a heartbeat of it (r's runs and jobs are those simulated here, a
// shard's own).
func (p *bracketProgress) end(r compare.BracketResult, err error) {
	p.line.Finish()
	if err != nil {
		return
	}
	w := p.line.Terminal()
	if w == nil {
		w = p.line.Logged()
	}
	if w != nil {
		fmt.Fprintf(w, "bracket N=%d: %d runs, %.3g jobs in %.1f s\n", r.Settings.Servers, r.Runs, float64(r.Jobs), time.Since(p.start).Seconds())
	}
}

// addSimProgressFlag defines herd sim's --progress: its runs are known in
// advance (a shard's are its own), so the line and the heartbeat give the
// time left, weighted by each run's expected jobs.
func addSimProgressFlag(fs *pflag.FlagSet) *string {
	return progressFlag(fs, "a line counting the runs, a shard's own, weighted by their expected jobs, on a terminal, else a heartbeat every 30 s: a line with the runs done, the time elapsed and the time left")
}

// addBallsProgressFlag defines herd balls' --progress: as herd sim's, with
// each run weighted by its balls.
func addBallsProgressFlag(fs *pflag.FlagSet) *string {
	return progressFlag(fs, "a line counting the runs, weighted by their balls, on a terminal, else a heartbeat every 30 s: a line with the runs done, the time elapsed and the time left")
}

// addValidateProgressFlag defines herd validate's --progress: its checks
// run one after another and differ in cost, so the time left is the pace
// so far, per check.
func addValidateProgressFlag(fs *pflag.FlagSet) *string {
	return progressFlag(fs, "a line counting the checks on a terminal, else a heartbeat every 30 s: a line with the checks done, the time elapsed and the time left at the pace so far; the checks differ in cost")
}

// progressFlag defines a command's --progress, whose help says what auto
// shows (a line on a terminal, a heartbeat otherwise); always is both,
// never nothing.
func progressFlag(fs *pflag.FlagSet, auto string) *string {
	return fs.String("progress", string(progress.Auto), "progress on stderr: auto ("+auto+"), always (both), never")
}
