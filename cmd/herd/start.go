package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"herd/fleet"
	"herd/meanfield"
)

// The start states of every command, read by one parser (fleet.StartKind):
//
//	empty        every queue empty
//	balanced:Q   every queue holds Q jobs; balanced alone is balanced:0,
//	             an empty board
//	half:B       half the servers hold B jobs, the rest are empty
//	spread:M     queue lengths spread evenly over 0 … M
//	single:B     one server holds B jobs (nothing as N → ∞: an empty board
//	             for the model)
//	geometric    the M/M/1 law at the load (the model only)
//
// A number may be a multiple of T (half:0.1T). The words mean the same in
// every command; a command says which it accepts (a startSet). The grammar
// of the fleet's states is fleet.ParseStart's; the model's board for a
// state is meanfield.StartBoard's.

// startState is a parsed start state: the fleet's start, or the M/M/1
// law (geometric), with the text it was written as.
type startState struct {
	fleet.Start
	geometric bool
	name      string // as written, trimmed
	flag      string // the flag it came from, for limit errors
}

// startSet is the start states one command accepts, in the order its
// help and errors list them.
type startSet struct {
	kinds []string // "empty", "balanced", "half", "spread", "single", "geometric"
	// needQ: balanced must be written with its Q (herd point, which has
	// always refused a bare balanced, as every command refuses a bare half).
	needQ bool
}

var (
	// simStarts are herd sim's and herd hysteresis' start states.
	simStarts = startSet{kinds: []string{"empty", "balanced", "half", "spread", "single"}}
	// pointStarts are herd point's start boards.
	pointStarts = startSet{kinds: []string{"empty", "balanced", "half", "geometric"}, needQ: true}
)

// startWord is a kind as help and errors write it.
var startWord = map[string]string{"empty": "empty", "balanced": "balanced:Q", "half": "half:B",
	"spread": "spread:M", "single": "single:B", "geometric": "geometric"}

// want lists the set's states: "empty, balanced:Q, half:B or geometric".
func (s startSet) want() string {
	words := make([]string, len(s.kinds))
	for i, k := range s.kinds {
		words[i] = startWord[k]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// help is the start flag's help text, less the limits.
func (s startSet) help() string {
	words := make([]string, len(s.kinds))
	for i, k := range s.kinds {
		words[i] = startWord[k]
		switch {
		case k == "balanced" && !s.needQ:
			words[i] += " (balanced alone: an empty board)"
		case k == "geometric":
			words[i] += " (the M/M/1 law)"
		}
	}
	return "start state: " + strings.Join(words, ", ") + "; numbers may be multiples of T, e.g. half:0.1T"
}

// startFlag defines a start flag (--start, --starts) of the set; rng says
// its limits.
func startFlag(fs *pflag.FlagSet, name, def string, set startSet, rng string) *string {
	return fs.String(name, def, set.help()+"; "+rng+" (list)")
}

// parser returns the set's parser for flag, for parsedList.
func (s startSet) parser(flag string) func(string) (startState, error) {
	return func(text string) (startState, error) { return s.parse(flag, text) }
}

// parse reads one start state of the set.
func (s startSet) parse(flag, text string) (startState, error) {
	name := strings.TrimSpace(text)
	kind, _, hasArg := strings.Cut(name, ":")
	st := startState{name: name, flag: flag}
	if !slices.Contains(s.kinds, kind) {
		return st, fmt.Errorf("unknown start %q: want %s", text, s.want())
	}
	if kind == "geometric" {
		if hasArg {
			return st, fmt.Errorf("start %q takes no parameter", text)
		}
		st.geometric = true
		return st, nil
	}
	if kind != "empty" && s.needQ && !hasArg { // the model's queues: a small example
		return st, fmt.Errorf("start %q needs a number, e.g. %s:3 or %s:0.1T", text, kind, kind)
	}
	var err error
	st.Start, err = fleet.ParseStart(text)
	return st, err
}

// simStart parses one of simStarts for flag, as the simulator takes it.
func simStart(flag string) func(string) (fleet.Start, error) {
	return func(text string) (fleet.Start, error) {
		st, err := simStarts.parse(flag, text)
		return st.Start, err
	}
}

// rows returns the start board's queue length at period T (a multiple of
// T resolved, rounded), or a usage error naming the flag when it is
// beyond modelMaxStart.
func (s startState) rows(refresh float64) (int, error) {
	return modelStartRows(s.flag, s.name, s.Start, refresh)
}

// board is the refresh map's start board for load λ with queue length q
// (from rows): the M/M/1 law, or meanfield.StartBoard.
func (s startState) board(load float64, q int) []float64 {
	if s.geometric {
		return meanfield.BoardGeometric(load, 1e-15)
	}
	return meanfield.StartBoard(s.Start, q)
}
