package plotting

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// logTicks marks a logarithmic axis: ticks at 1..9 times each power of
// ten, like plot.LogTicks, labelled at the powers of ten when the axis
// spans many decades and at 1, 2 and 5 times them when it spans fewer than
// labelAllDecades (or when fewer than two powers of ten fall in the range);
// if that still gives fewer than two labels, every tick is labelled. It
// departs from plot.LogTicks (v0.17) also in finding decades with floor
// and ceil (LogTicks truncates toward zero, losing the first decade of a
// range below 1). Labels are written by tickLabel.
type logTicks struct{}

// labelAllDecades: a log axis spanning fewer decades than this gets its
// 2s and 5s labelled too.
const labelAllDecades = 2.5

var _ plot.Ticker = logTicks{}

// Ticks implements plot.Ticker. It returns no ticks for a range that is
// not positive (which Save never draws).
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0 && hi >= lo) || math.IsInf(hi, 0) {
		return nil
	}
	// Tolerate rounding at the ends: 10^e computed from a parsed literal
	// may differ from an axis end in the last bit.
	const slack = 1e-9
	in := func(v float64) bool { return v >= lo*(1-slack) && v <= hi*(1+slack) }

	e0 := int(math.Floor(math.Log10(lo)))
	e1 := int(math.Ceil(math.Log10(hi)))
	var ticks []plot.Tick
	for e := e0; e <= e1; e++ {
		for i := 1; i <= 9; i++ {
			v := decimal(i, e)
			if in(v) {
				ticks = append(ticks, plot.Tick{Value: v})
			}
		}
	}
	label := func(keep func(lead int) bool) int {
		n := 0
		for k := range ticks {
			if lead := leadingDigit(ticks[k].Value); keep(lead) {
				ticks[k].Label = tickLabel(ticks[k].Value)
				n++
			}
		}
		return n
	}
	defer powerLabels(ticks)
	oneTwoFive := func(d int) bool { return d == 1 || d == 2 || d == 5 }
	if math.Log10(hi/lo) < labelAllDecades {
		if label(oneTwoFive) < 2 {
			label(func(int) bool { return true })
		}
	} else if label(func(d int) bool { return d == 1 }) < 2 {
		if label(oneTwoFive) < 2 {
			label(func(int) bool { return true })
		}
	}
	return ticks
}

// decimal returns i×10^e as the float64 nearest to that decimal, so that
// 3×10^-1 is 0.3, not 0.30000000000000004.
func decimal(i, e int) float64 {
	v, _ := strconv.ParseFloat(strconv.Itoa(i)+"e"+strconv.Itoa(e), 64)
	return v
}

// leadingDigit returns the first significant digit of v > 0.
func leadingDigit(v float64) int {
	s := strconv.FormatFloat(v, 'e', -1, 64)
	return int(s[0] - '0')
}

// linearTicks is plot.DefaultTicks with its labels written by tickLabel.
type linearTicks struct{}

var _ plot.Ticker = linearTicks{}

// Ticks implements plot.Ticker.
func (linearTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			// DefaultTicks steps in float arithmetic: round away the noise
			// (0.30000000000000004) before formatting.
			v, _ := strconv.ParseFloat(strconv.FormatFloat(ticks[i].Value, 'g', 12, 64), 64)
			ticks[i].Label = tickLabel(v)
		}
	}
	powerLabels(ticks)
	return ticks
}

// powerLabels gives an axis one number format: when any label needs a
// power of ten, every label is written as one (10^{0}, 2×10^{-3}).
func powerLabels(ticks []plot.Tick) {
	need := false
	for _, t := range ticks {
		need = need || strings.Contains(t.Label, "10^{")
	}
	if !need {
		return
	}
	for i := range ticks {
		if ticks[i].Label != "" && !strings.Contains(ticks[i].Label, "10^{") && ticks[i].Value != 0 {
			ticks[i].Label = powerLabel(ticks[i].Value)
		}
	}
}

// tickLabel is the one number format of every axis: plain decimals from
// 0.001 up to 10⁵ (0.05, 2, 300, 20000), and above or below that a power
// of ten with a real superscript, 10^{6} or 2×10^{6} (drawn by
// scriptText), never "1e+06".
func tickLabel(v float64) string {
	if v == 0 {
		return "0"
	}
	a := math.Abs(v)
	if a >= 1e-3 && a < 1e5 {
		return strings.Replace(strconv.FormatFloat(v, 'f', -1, 64), "-", "−", 1)
	}
	return powerLabel(v)
}

// powerLabel writes v ≠ 0 as m×10^{e} with 1 ≤ |m| < 10, or 10^{e} when
// m = 1, minus signs as −.
func powerLabel(v float64) string {
	a := math.Abs(v)
	e := int(math.Floor(math.Log10(a)))
	m, _ := strconv.ParseFloat(strconv.FormatFloat(v/math.Pow(10, float64(e)), 'g', 6, 64), 64)
	if math.Abs(m) >= 10 { // rounding carried into the next decade
		m /= 10
		e++
	}
	exp := strings.Replace(strconv.Itoa(e), "-", "−", 1)
	switch m {
	case 1:
		return "10^{" + exp + "}"
	case -1:
		return "−10^{" + exp + "}"
	}
	return strings.Replace(strconv.FormatFloat(m, 'f', -1, 64), "-", "−", 1) + "×10^{" + exp + "}"
}
