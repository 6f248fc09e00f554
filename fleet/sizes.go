package fleet

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// SizeKind names a job-size law. All have mean 1 (one service time).
type SizeKind int

// The job-size laws (sim's package doc, The system).
const (
	Exp    SizeKind = iota // exponential, mean 1
	H2                     // hyperexponential, balanced means, squared CV C ≥ 1
	Det                    // all sizes 1
	Pareto                 // mean-1 Pareto with shape α > 1
	Erlang                 // Erlang-K: K exponential phases of mean 1/K (squared CV 1/K)
)

// MaxH2SCV is the largest squared coefficient of variation of h2 sizes.
const MaxH2SCV = 1e9

// Sizes is a job-size law with its parameter (C for H2, α for Pareto, K
// for Erlang). What a law does is each side's own: sim draws sizes from
// it, and compare maps the phase-type ones to the model's service law.
type Sizes struct {
	Kind  SizeKind
	Param float64
}

// ParseSizes reads exp, det, h2:C, pareto:A or erlang:K, the words of herd
// sim's --sizes.
func ParseSizes(s string) (Sizes, error) {
	name, arg, hasArg := strings.Cut(strings.TrimSpace(s), ":")
	switch name {
	case "exp", "det":
		if hasArg {
			return Sizes{}, fmt.Errorf("fleet: sizes %q take no parameter", s)
		}
		if name == "exp" {
			return Sizes{Kind: Exp}, nil
		}
		return Sizes{Kind: Det}, nil
	case "h2", "pareto":
		if !hasArg {
			return Sizes{}, fmt.Errorf("fleet: sizes %q need a parameter, e.g. h2:10 or pareto:2.5", s)
		}
		v, err := strconv.ParseFloat(arg, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return Sizes{}, fmt.Errorf("fleet: sizes %q: parameter is not a number", s)
		}
		z := Sizes{Kind: H2, Param: v}
		if name == "pareto" {
			z.Kind = Pareto
		}
		return z, z.Validate()
	case "erlang":
		k, err := strconv.Atoi(arg)
		if !hasArg || err != nil {
			return Sizes{}, fmt.Errorf("fleet: sizes %q need an integer number of phases, e.g. erlang:4", s)
		}
		z := Sizes{Kind: Erlang, Param: float64(k)}
		return z, z.Validate()
	}
	return Sizes{}, fmt.Errorf("fleet: unknown sizes %q: want exp, det, h2:C, pareto:A or erlang:K", s)
}

// Validate reports a parameter out of its law's range, naming the range.
func (z Sizes) Validate() error {
	switch z.Kind {
	case Exp, Det:
		return nil
	case H2:
		// Beyond MaxH2SCV the slow phase's probability, about 1/(2C),
		// is lost to rounding in the draw (a uniform double against
		// the fast phase's probability) and the sizes' mean with it.
		if !(z.Param >= 1 && z.Param <= MaxH2SCV) {
			return fmt.Errorf("fleet: sizes h2:%g: C must be in [1, %g]", z.Param, float64(MaxH2SCV))
		}
		return nil
	case Pareto:
		if !(z.Param > 1) {
			return fmt.Errorf("fleet: sizes pareto:%g: A must be > 1 (mean 1 needs a finite mean)", z.Param)
		}
		return nil
	case Erlang:
		if !(z.Param >= 1 && z.Param <= 1000 && z.Param == math.Trunc(z.Param)) {
			return fmt.Errorf("fleet: sizes erlang:%g: K must be an integer in [1, 1000]", z.Param)
		}
		return nil
	}
	return fmt.Errorf("fleet: unknown size kind %d", int(z.Kind))
}

// String returns the name ParseSizes reads, or sizes(k) for an unknown
// kind.
func (z Sizes) String() string {
	num := strconv.FormatFloat(z.Param, 'g', -1, 64)
	switch z.Kind {
	case Exp:
		return "exp"
	case Det:
		return "det"
	case H2:
		return "h2:" + num
	case Pareto:
		return "pareto:" + num
	case Erlang:
		return "erlang:" + num
	}
	return fmt.Sprintf("sizes(%d)", int(z.Kind))
}

// H2Phases are the balanced-means hyperexponential's phase-1 probability
// p and the phases' means 1/(2p) and 1/(2(1 − p)), for squared
// coefficient of variation c = z.Param (meaningful for Kind H2 only).
func (z Sizes) H2Phases() (p, m1, m2 float64) {
	c := z.Param
	p = (1 + math.Sqrt((c-1)/(c+1))) / 2
	return p, 1 / (2 * p), 1 / (2 * (1 - p))
}

// SecondMoment returns E[S²] of the law (+Inf for Pareto with α ≤ 2).
func (z Sizes) SecondMoment() float64 {
	switch z.Kind {
	case Det:
		return 1
	case H2:
		return 1 + z.Param
	case Pareto:
		if z.Param <= 2 {
			return math.Inf(1)
		}
		xm := (z.Param - 1) / z.Param
		return z.Param * xm * xm / (z.Param - 2)
	case Erlang:
		return 1 + 1/z.Param
	}
	return 2
}
