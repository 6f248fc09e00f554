package fleet

import (
	"fmt"
	"strconv"
	"strings"
)

// PolicyKind names a dispatch rule: what every dispatcher of a fleet runs
// (sim's package doc, The system), and what a ball of balls into bins runs.
type PolicyKind int

// The dispatch rules. Each dispatcher runs the same rule.
const (
	Random      PolicyKind = iota // a uniform server
	RoundRobin                    // each dispatcher its own counter, random offset
	LeastLoaded                   // smallest board value, ties uniformly at random
	BestOfD                       // D distinct uniform probes, smallest board value
	Left                          // Vöcking's Left[D]: one probe per contiguous group, ties leftmost
	FirstDiff                     // probe until a value differs from the first probe's
	Oracle                        // least remaining work, live and exact
)

// Policy is a dispatch rule with its parameter.
type Policy struct {
	Kind PolicyKind
	// D is the number of probes for BestOfD and Left, and the target
	// mean probes per job for FirstDiff.
	D int
	// WithReplacement makes BestOfD sample its D probes independently (as
	// the mean-field literature does) instead of D distinct servers.
	WithReplacement bool
}

// ParsePolicy reads random, rr, ll, sqd:D, sq2, left:D, firstdiff:D or
// oracle, the words of herd sim's --policy.
func ParsePolicy(s string) (Policy, error) {
	name, arg, hasArg := strings.Cut(strings.TrimSpace(s), ":")
	noArg := func(kind PolicyKind) (Policy, error) {
		if hasArg {
			return Policy{}, fmt.Errorf("fleet: policy %q takes no parameter", s)
		}
		return Policy{Kind: kind}, nil
	}
	switch name {
	case "random":
		return noArg(Random)
	case "rr":
		return noArg(RoundRobin)
	case "ll":
		return noArg(LeastLoaded)
	case "oracle":
		return noArg(Oracle)
	case "sq2":
		if hasArg {
			return Policy{}, fmt.Errorf("fleet: policy %q takes no parameter (use sqd:D)", s)
		}
		return Policy{Kind: BestOfD, D: 2}, nil
	case "sqd":
		return probes(s, name, arg, hasArg, BestOfD)
	case "left":
		return probes(s, name, arg, hasArg, Left)
	case "firstdiff":
		return probes(s, name, arg, hasArg, FirstDiff)
	}
	return Policy{}, fmt.Errorf("fleet: unknown policy %q: want random, rr, ll, sqd:D, sq2, left:D, firstdiff:D or oracle", s)
}

// probes reads the D of policy s (name:arg, hasArg when it has the colon)
// as a rule of kind, which probes D servers (or bins).
func probes(s, name, arg string, hasArg bool, kind PolicyKind) (Policy, error) {
	if !hasArg {
		return Policy{}, fmt.Errorf("fleet: policy %q needs a number of probes, e.g. %s:2", s, name)
	}
	d, err := strconv.Atoi(arg)
	if err != nil || d < 1 {
		return Policy{}, fmt.Errorf("fleet: policy %q: D must be an integer ≥ 1", s)
	}
	return Policy{Kind: kind, D: d}, nil
}

// String returns the name ParsePolicy reads (with replacement or not: the
// name does not say), or policy(k) for an unknown kind.
func (p Policy) String() string {
	switch p.Kind {
	case Random:
		return "random"
	case RoundRobin:
		return "rr"
	case LeastLoaded:
		return "ll"
	case Oracle:
		return "oracle"
	case BestOfD:
		if p.D == 2 {
			return "sq2"
		}
		return "sqd:" + strconv.Itoa(p.D)
	case Left:
		return "left:" + strconv.Itoa(p.D)
	case FirstDiff:
		return "firstdiff:" + strconv.Itoa(p.D)
	}
	return fmt.Sprintf("policy(%d)", int(p.Kind))
}

// ParseBallsPolicy reads a rule of balls into bins, in that literature's
// words (herd balls --policy): uniform (Random), greedy:D (Greedy[D],
// BestOfD with replacement), left:D or firstdiff:D.
func ParseBallsPolicy(s string) (Policy, error) {
	name, arg, hasArg := strings.Cut(strings.TrimSpace(s), ":")
	var kind PolicyKind
	switch name {
	case "uniform":
		if hasArg {
			return Policy{}, fmt.Errorf("fleet: policy %q takes no parameter", s)
		}
		return Policy{Kind: Random}, nil
	case "greedy":
		kind = BestOfD
	case "left":
		kind = Left
	case "firstdiff":
		kind = FirstDiff
	default:
		return Policy{}, fmt.Errorf("fleet: unknown policy %q: want uniform, greedy:D, left:D or firstdiff:D", s)
	}
	p, err := probes(s, name, arg, hasArg, kind)
	p.WithReplacement = err == nil && kind == BestOfD
	return p, err
}

// BallsPolicyName returns the name ParseBallsPolicy reads, or String's
// for a rule that is not one of balls into bins.
func BallsPolicyName(p Policy) string {
	switch p.Kind {
	case Random:
		return "uniform"
	case BestOfD:
		return "greedy:" + strconv.Itoa(p.D)
	case Left:
		return "left:" + strconv.Itoa(p.D)
	case FirstDiff:
		return "firstdiff:" + strconv.Itoa(p.D)
	}
	return p.String()
}
