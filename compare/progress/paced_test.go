package progress

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

// Paced's note on an item at work reads its last report and the recent
// time between reports: none before the first report, the first
// interval at the second, then a moving average weighting the last
// interval by a quarter.
func TestPacedNote(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	p := NewPaced(&b, false, Never, "point", "points", []string{"a"}, []float64{1}, func(r *int, per time.Duration) string {
		if r == nil {
			return "none"
		}
		return fmt.Sprintf("%d %v", *r, per)
	})
	defer p.Close()
	p.Begin(0)
	note := func() string { return p.Beat.live[0]() }
	if got := note(); got != "none" {
		t.Errorf("before a report: %q, want none", got)
	}
	p.Report(0, 1)
	if got := note(); got != "1 0s" {
		t.Errorf("after the first report: %q, want 1 0s (no pace yet)", got)
	}
	// Reports 8 s, then 4 s apart: the pace is 8 s, then (3·8 + 4)/4 = 7 s.
	for _, c := range []struct {
		gap  time.Duration
		want time.Duration
	}{{8 * time.Second, 8 * time.Second}, {4 * time.Second, 7 * time.Second}} {
		prev := p.last[0].Load()
		prev.at = prev.at.Add(-c.gap)
		p.Report(0, 2)
		if got := p.last[0].Load().per; got.Round(100*time.Millisecond) != c.want {
			t.Errorf("after a report %v later: pace %v, want %v", c.gap, got, c.want)
		}
	}
	p.End(0)
	if b.Len() != 0 {
		t.Errorf("mode never wrote %q", b.String())
	}
}

// The line over the batch shows only on a terminal, unless mode is never;
// the heartbeat runs off a terminal (auto) or always.
func TestPacedModes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		term       bool
		mode       Mode
		line, beat bool
	}{
		{true, Auto, true, false},
		{false, Auto, false, true},
		{true, Always, true, true},
		{false, Never, false, false},
		{true, Never, false, false},
	} {
		var b bytes.Buffer
		p := NewPaced(&b, c.term, c.mode, "point", "points", []string{"a"}, []float64{1}, func(*int, time.Duration) string { return "" })
		if line, beat := p.Line.Terminal() != nil, p.Beat.w != nil; line != c.line || beat != c.beat {
			t.Errorf("term %v, mode %s: line %v, heartbeat %v; want %v, %v", c.term, c.mode, line, beat, c.line, c.beat)
		}
		p.Close()
	}
}
