package plotting

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// logTicks marks a logarithmic axis: a major, labelled tick at each power
// of ten and minor ticks at 2..9 times it, like plot.LogTicks. It departs
// from plot.LogTicks (v0.17) in two ways: decades are found with floor and
// ceil (LogTicks truncates toward zero, losing the first decade of a range
// below 1), and when fewer than two powers of ten fall in the range it also
// labels 2 and 5 times each power, then every tick, so a narrow log axis is
// never left without numbers.
type logTicks struct{}

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
				ticks[k].Label = strconv.FormatFloat(ticks[k].Value, 'g', -1, 64)
				n++
			}
		}
		return n
	}
	if label(func(d int) bool { return d == 1 }) < 2 {
		if label(func(d int) bool { return d == 1 || d == 2 || d == 5 }) < 2 {
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
