package fleet

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// StartKind names an initial state.
type StartKind int

// Start states: the queues at time 0, each job's size drawn fresh.
const (
	StartEmpty    StartKind = iota // every queue empty
	StartBalanced                  // every queue holds Q jobs
	StartHalf                      // a uniformly random half holds B jobs, the rest empty
	StartSpread                    // queue lengths spread evenly from 0 to M
	StartSingle                    // one server holds B jobs
)

// startWords are the kinds as ParseStart reads and String writes them.
var startWords = [...]string{StartEmpty: "empty", StartBalanced: "balanced", StartHalf: "half", StartSpread: "spread", StartSingle: "single"}

// Valid reports whether k is one of the start kinds above.
func (k StartKind) Valid() bool { return k >= 0 && int(k) < len(startWords) }

// String returns the kind's word ("half"), or start(k) for an unknown k.
func (k StartKind) String() string {
	if !k.Valid() {
		return fmt.Sprintf("start(%d)", int(k))
	}
	return startWords[k]
}

// Start is an initial state. Value is Q, B or M; when PerRefresh is set it
// is a multiple of the refresh period (half:0.1T).
type Start struct {
	Kind       StartKind
	Value      float64
	PerRefresh bool
}

// ParseStart reads empty, balanced[:Q], half:B, spread:M or single:B, where
// a number may be written as a multiple of T (half:0.1T).
func ParseStart(s string) (Start, error) {
	name, arg, hasArg := strings.Cut(strings.TrimSpace(s), ":")
	var st Start
	switch name {
	case "empty":
		if hasArg {
			return Start{}, fmt.Errorf("fleet: start %q takes no parameter", s)
		}
		return Start{Kind: StartEmpty}, nil
	case "balanced":
		st.Kind = StartBalanced
		if !hasArg {
			return st, nil
		}
	case "half":
		st.Kind = StartHalf
	case "spread":
		st.Kind = StartSpread
	case "single":
		st.Kind = StartSingle
	default:
		return Start{}, fmt.Errorf("fleet: unknown start %q: want empty, balanced:Q, half:B, spread:M or single:B", s)
	}
	if !hasArg {
		return Start{}, fmt.Errorf("fleet: start %q needs a number, e.g. %s:10 or %s:0.1T", s, name, name)
	}
	if strings.HasSuffix(arg, "T") {
		st.PerRefresh = true
		arg = strings.TrimSuffix(arg, "T")
	}
	v, err := strconv.ParseFloat(arg, 64)
	if err != nil || !(v >= 0) || math.IsInf(v, 0) {
		return Start{}, fmt.Errorf("fleet: start %q: the number must be ≥ 0", s)
	}
	st.Value = v
	return st, nil
}

// String returns the start as ParseStart reads it: empty, balanced (Q = 0)
// or balanced:Q, half:B, spread:M, single:B, a multiple of T written with
// its T (half:0.1T).
func (s Start) String() string {
	num := strconv.FormatFloat(s.Value, 'g', -1, 64)
	if s.PerRefresh {
		num += "T"
	}
	switch {
	case !s.Kind.Valid():
		return s.Kind.String()
	case s.Kind == StartEmpty:
		return "empty"
	case s.Kind == StartBalanced && s.Value == 0 && !s.PerRefresh:
		return "balanced"
	}
	return s.Kind.String() + ":" + num
}

// Resolved returns the start parameter in jobs (a multiple of T times
// refresh), rounded; it may be too large for an int (the simulator's and
// the model's limits bound it).
func (s Start) Resolved(refresh float64) float64 {
	v := s.Value
	if s.PerRefresh {
		v *= refresh
	}
	return math.Round(v)
}

// Total returns the jobs the start state lays down on n servers, as a
// float64 so that no size overflows.
func (s Start) Total(n int, refresh float64) float64 {
	b := s.Resolved(refresh)
	switch s.Kind {
	case StartBalanced:
		return float64(n) * b
	case StartHalf:
		return float64(n/2) * b
	case StartSpread: // queues from 0 to b, evenly: about n·b/2
		return float64(n) * b / 2
	case StartSingle:
		return b
	}
	return 0
}
