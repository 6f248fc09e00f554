package sim

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"herd/fleet"
)

// Default run lengths: a run lasts MinHorizon service times, and at least
// HorizonRefreshes refresh periods when its rule reads a stale board.
const (
	MinHorizon       = 20000
	HorizonRefreshes = 1000
)

// AutoHorizon is the default run length of c: MinHorizon service times, or
// HorizonRefreshes refresh periods when the rule reads a stale board,
// whichever is longer. A stale board's herd lives on the refresh period's
// time scale, and a balanced state past the edge is metastable in a finite
// fleet: it leaves after a random time. HorizonRefreshes is the window over
// which compare's brackets judge whether a state survives, so a default
// run is long enough for herd sim to see (and report) the tips a bracket
// would count, where 20,000 service times covered only 20,000/T periods.
func (c Config) AutoHorizon() float64 {
	if c.Refresh > 0 && readsBoard(c.Policy) {
		return math.Max(MinHorizon, HorizonRefreshes*c.Refresh)
	}
	return MinHorizon
}

// readsBoard reports whether the rule p looks at the board (and so at
// tallies).
func readsBoard(p fleet.Policy) bool {
	switch p.Kind {
	case fleet.LeastLoaded, fleet.BestOfD, fleet.Left, fleet.FirstDiff:
		return true
	}
	return false
}

// Tally is how a dispatcher corrects the stale board between refreshes.
type Tally int

// Tallies. All reset at every refresh.
const (
	TallyNone   Tally = iota // the board as it is
	TallyOwn                 // board + this dispatcher's own sends since the refresh
	TallyShared              // board + every dispatcher's sends since the refresh
	// TallyScaled: board + k × this dispatcher's own sends, guessing that
	// the other k − 1 dispatchers sent as many (an explorative fix).
	TallyScaled
)

// ParseTally reads none, own, shared or scaled.
func ParseTally(s string) (Tally, error) {
	switch s {
	case "none":
		return TallyNone, nil
	case "own":
		return TallyOwn, nil
	case "shared":
		return TallyShared, nil
	case "scaled":
		return TallyScaled, nil
	}
	return 0, fmt.Errorf("sim: unknown tally %q: want none, own, shared or scaled", s)
}

func (t Tally) String() string {
	switch t {
	case TallyNone:
		return "none"
	case TallyOwn:
		return "own"
	case TallyShared:
		return "shared"
	case TallyScaled:
		return "scaled"
	}
	return fmt.Sprintf("tally(%d)", int(t))
}

// Config describes one simulated system. The zero value of each field
// means its default, as documented on the field.
type Config struct {
	Servers     int     // N ≥ 1; default 100
	Dispatchers int     // k ≥ 1; default 1
	Load        float64 // λ in (0, 1), arrival rate per server; default 0.9
	// Refresh is the board period T in service times; 0 is a live board.
	Refresh     float64
	Policy      fleet.Policy // default Random
	Tally       Tally        // default TallyNone; moot (reported as none) for random, rr, oracle and on a live board
	Partitioned bool         // dispatcher i owns a contiguous block of servers
	Sizes       fleet.Sizes  // default exponential
	Start       fleet.Start  // default empty
	// Horizon is the simulated time per run in service times; default
	// AutoHorizon: 20,000, or 1,000 refresh periods where the rule reads a
	// stale board, whichever is longer.
	Horizon float64
	// Warmup is the time before which arrivals are not measured; default a
	// quarter of the horizon. NoWarmup measures from time 0.
	Warmup   float64
	NoWarmup bool
	// SampleEvery is the spacing of board samples on a live board (Refresh
	// 0), in service times; default 10. With a refresh period the board is
	// recorded at each refresh.
	SampleEvery float64
	// FirstDiffCap is the most probes one FirstDiff job may make; default
	// (and at most) the number of servers it may probe. See firstdiff.go.
	FirstDiffCap int
	// KeepTrace keeps every board record (time, mean, min, max) of a run.
	KeepTrace bool
	// Tail measures the 99th percentile of the response time
	// (Result.ResponseP99, Summary.ResponseP99). It changes no random draw
	// and is not part of Key: a run's other results are the same with it.
	Tail bool
	// Observe, if set, is called at every board record (from time 0) and
	// may stop the run by returning false (compare's tipping detector).
	Observe func(BoardStat) bool
}

// withDefaults returns c with zero fields replaced by their defaults.
func (c Config) withDefaults() Config {
	if c.Servers == 0 {
		c.Servers = 100
	}
	if c.Dispatchers == 0 {
		c.Dispatchers = 1
	}
	if c.Load == 0 {
		c.Load = 0.9
	}
	if c.Horizon == 0 {
		c.Horizon = c.AutoHorizon()
	}
	if c.Warmup == 0 && !c.NoWarmup {
		c.Warmup = c.Horizon / 4
	}
	if c.NoWarmup {
		c.Warmup = 0
	}
	if c.SampleEvery == 0 {
		c.SampleEvery = 10
	}
	if !readsBoard(c.Policy) || c.Refresh == 0 {
		c.Tally = TallyNone // nothing to correct: the rule ignores the board, or the board is exact
	}
	if c.Policy.Kind == fleet.BestOfD && c.Policy.D == 1 {
		c.Policy.WithReplacement = false
	}
	return c
}

// Normalized returns the configuration with defaults filled in, as Run uses it.
func (c Config) Normalized() Config { return c.withDefaults() }

// ErrConfig marks invalid configurations.
var ErrConfig = errors.New("invalid configuration")

// ConfigError is an invalid or oversized configuration: Field names the
// Config field at fault (Servers, Start, Policy, …), Msg says what is
// wrong and the allowed range. It wraps ErrConfig.
type ConfigError struct {
	Field string // the Config field: Servers, Start, Policy, …
	Value string // its value, as the command line writes it
	Msg   string // what is wrong: the allowed range, or what it would need
}

func (e *ConfigError) Error() string {
	return "sim: " + ErrConfig.Error() + ": " + e.Field + " = " + e.Value + ": " + e.Msg
}

func (e *ConfigError) Unwrap() error { return ErrConfig }

func cfgErr(format string, args ...any) error {
	return fmt.Errorf("sim: %w: %s", ErrConfig, fmt.Sprintf(format, args...))
}

// fieldErr is a ConfigError on field, whose value is value.
func fieldErr(field string, value any, format string, args ...any) error {
	v := fmt.Sprint(value)
	if f, ok := value.(float64); ok {
		v = fmtFloat(f)
	}
	return &ConfigError{Field: field, Value: v, Msg: fmt.Sprintf(format, args...)}
}

// Size limits of one run, checked by Validate before anything is
// allocated. They follow from the estimates in Footprint: a run's memory
// is about 64 bytes per server, 4 more per server and dispatcher for
// per-dispatcher tallies, 24·k² for the scaled tally's water levels and
// 64 bytes per job present at the start (a 16-byte departure event in a
// list that grows by doubling); its time is about 100 ns per arrival plus
// 10 ns per probe, plus about a nanosecond per server at each board
// refresh.
const (
	// MaxServers: 10⁷ servers hold about 640 MB of state per run.
	MaxServers = 10_000_000
	// MaxDispatchers: beyond 10⁵ dispatchers the per-dispatcher state
	// (tallies, water levels) alone outgrows MaxRunBytes at any useful N.
	MaxDispatchers = 100_000
	// MaxProbes bounds D in sqd:D, left:D and firstdiff:D: a job costs
	// O(D) probes (10–100 ns each), so D = 1,024 already makes a job
	// a thousand times dearer than random dispatching.
	MaxProbes = 1024
	// MaxStartJobs bounds the jobs a start state lays down: up to 64
	// bytes each at the peak, 1.3 GB (measured: 4·10⁷ jobs took 2.5 GB
	// and 24 s on a loaded machine).
	MaxStartJobs = 20_000_000
	// MaxRunJobs bounds the expected arrivals of one run, λ·N·horizon:
	// 10¹² arrivals take about a day on one core.
	MaxRunJobs = 1e12
	// MaxRecords bounds the board records of one run, horizon/T (or
	// horizon/SampleEvery on a live board): each copies the board.
	MaxRecords = 1e9
	// MaxRunBytes bounds the estimated memory of one run (2 GiB).
	MaxRunBytes = 1 << 31
)

// Footprint estimates one run's memory in bytes (see the limits above).
// It is computed in float64, so that no product overflows.
func (c Config) Footprint() float64 {
	c = c.withDefaults()
	n, k := float64(c.Servers), float64(c.Dispatchers)
	b := 64*n + 64*k + 64*c.Start.Total(c.Servers, c.Refresh)
	perDispatcher := c.Tally == TallyOwn || c.Tally == TallyScaled
	if perDispatcher && readsBoard(c.Policy) {
		b += 4 * k * n // a tally (or water level list) per dispatcher
	}
	if c.Tally == TallyScaled && c.Policy.Kind == fleet.LeastLoaded {
		b += 24 * k * k
	}
	return b
}

// limits checks the size limits; c has its defaults.
func (c Config) limits() error {
	switch {
	case c.Servers > MaxServers:
		return fieldErr("Servers", c.Servers, "want at most %d (about 64 bytes of state per server)", MaxServers)
	case c.Dispatchers > MaxDispatchers:
		return fieldErr("Dispatchers", c.Dispatchers, "want at most %d (per-dispatcher state)", MaxDispatchers)
	}
	switch c.Policy.Kind {
	case fleet.BestOfD, fleet.Left, fleet.FirstDiff:
		if c.Policy.D > MaxProbes {
			return fieldErr("Policy", c.Policy, "want D ≤ %d (a job costs D probes)", MaxProbes)
		}
	}
	if q := c.Start.Resolved(c.Refresh); q > MaxStartJobs {
		return fieldErr("Start", c.Start, "puts %.3g jobs on a server, want at most %d", q, MaxStartJobs)
	}
	if j := c.Start.Total(c.Servers, c.Refresh); j > MaxStartJobs {
		return fieldErr("Start", c.Start, "lays down %.3g jobs on %d servers, want at most %d (up to 64 bytes each)", j, c.Servers, MaxStartJobs)
	}
	if j := c.Load * float64(c.Servers) * c.Horizon; !(j <= MaxRunJobs) {
		return fieldErr("Horizon", c.Horizon, "a run would simulate λ·N·horizon = %.3g arrivals, want at most %.0e (about a day on one core)", j, MaxRunJobs)
	}
	step := c.Refresh
	if step == 0 {
		step = c.SampleEvery
	}
	if r := c.Horizon / step; !(r <= MaxRecords) {
		if c.Refresh == 0 {
			return fieldErr("Horizon", c.Horizon, "a run would take horizon/%v = %.3g board samples, want at most %.0e", c.SampleEvery, r, MaxRecords)
		}
		return fieldErr("Refresh", c.Refresh, "a run of horizon %v would take horizon/T = %.3g board refreshes, want at most %.0e", c.Horizon, r, MaxRecords)
	}
	if m := c.Footprint(); m > MaxRunBytes {
		field, value := "Servers", any(c.Servers) // the flag behind the largest term
		if st := 64 * c.Start.Total(c.Servers, c.Refresh); st > m/2 {
			field, value = "Start", c.Start
		} else if 64*float64(c.Servers) < m/2 {
			field, value = "Dispatchers", c.Dispatchers
		}
		return fieldErr(field, value, "a run would need about %.3g GB of memory (servers %d, dispatchers %d, tally %s, start %s), want at most %.3g GB",
			m/1e9, c.Servers, c.Dispatchers, c.Tally, c.Start, float64(MaxRunBytes)/1e9)
	}
	return nil
}

// Validate reports the first invalid field, naming its allowed range.
func (c Config) Validate() error {
	c = c.withDefaults()
	if err := c.validateNumbers(); err != nil {
		return err
	}
	if err := c.Sizes.Validate(); err != nil {
		return fmt.Errorf("%w (%w)", err, ErrConfig)
	}
	if c.Start.PerRefresh && c.Refresh == 0 {
		return fieldErr("Start", c.Start, "a multiple of T, but the board is live (Refresh = 0)")
	}
	if err := c.validatePolicy(); err != nil {
		return err
	}
	if c.Tally < TallyNone || c.Tally > TallyScaled {
		return cfgErr("unknown tally %d", int(c.Tally))
	}
	if !c.Start.Kind.Valid() {
		return cfgErr("unknown start kind %d", int(c.Start.Kind))
	}
	if !(c.Start.Value >= 0) || math.IsInf(c.Start.Value, 0) {
		return fieldErr("Start", c.Start, "the number must be finite and ≥ 0")
	}
	return c.limits()
}

// validateNumbers checks the numeric fields' ranges (defaults filled in).
func (c Config) validateNumbers() error {
	switch {
	case c.Servers < 1:
		return fieldErr("Servers", c.Servers, "want an integer ≥ 1")
	case c.Dispatchers < 1:
		return fieldErr("Dispatchers", c.Dispatchers, "want an integer ≥ 1")
	case !(c.Load > 0 && c.Load < 1):
		return fieldErr("Load", c.Load, "want a number in (0, 1)")
	case !(c.Refresh >= 0) || math.IsInf(c.Refresh, 0):
		return fieldErr("Refresh", c.Refresh, "want a finite number ≥ 0 (0 is a live board)")
	case c.Partitioned && c.Servers < c.Dispatchers:
		return fieldErr("Partitioned", true, "needs Servers ≥ Dispatchers, have %d < %d", c.Servers, c.Dispatchers)
	case !(c.Horizon > 0) || math.IsInf(c.Horizon, 0):
		return fieldErr("Horizon", c.Horizon, "want a finite number > 0")
	case !(c.Warmup >= 0 && c.Warmup < c.Horizon):
		return fieldErr("Warmup", c.Warmup, "want a number in [0, horizon = %v)", c.Horizon)
	case !(c.SampleEvery > 0):
		return fieldErr("SampleEvery", c.SampleEvery, "want a number > 0")
	case c.FirstDiffCap < 0:
		return fieldErr("FirstDiffCap", c.FirstDiffCap, "want an integer ≥ 0 (0 is the default)")
	}
	return nil
}

// validatePolicy checks the policy's kind and D against the servers one
// dispatcher reaches.
func (c Config) validatePolicy() error {
	block := c.Servers
	if c.Partitioned {
		block = c.Servers / c.Dispatchers
	}
	switch c.Policy.Kind {
	case fleet.BestOfD:
		if c.Policy.D < 1 {
			return fieldErr("Policy", c.Policy, "D must be ≥ 1")
		}
		if !c.Policy.WithReplacement && c.Policy.D > block {
			return fieldErr("Policy", c.Policy, "samples %d distinct servers but a dispatcher reaches only %d", c.Policy.D, block)
		}
	case fleet.Left:
		if c.Policy.D < 1 || c.Policy.D > block {
			return fieldErr("Policy", c.Policy, "D must be in [1, %d] (servers a dispatcher reaches)", block)
		}
	case fleet.FirstDiff:
		if c.Policy.D < 1 {
			return fieldErr("Policy", c.Policy, "D must be ≥ 1")
		}
	case fleet.Random, fleet.RoundRobin, fleet.LeastLoaded, fleet.Oracle:
	default:
		return cfgErr("unknown policy kind %d", int(c.Policy.Kind))
	}
	return nil
}

// Key is a canonical description of the configuration: the identity from
// which a run's seed is derived (with the replication index).
func (c Config) Key() string {
	c = c.withDefaults()
	pol := c.Policy.String()
	if c.Policy.WithReplacement {
		pol += "+repl"
	}
	return fmt.Sprintf("servers=%d dispatchers=%d load=%s refresh=%s policy=%s tally=%s partitioned=%t sizes=%s start=%s horizon=%s warmup=%s cap=%d",
		c.Servers, c.Dispatchers, fmtFloat(c.Load), fmtFloat(c.Refresh), pol, c.Tally, c.Partitioned,
		c.Sizes, c.Start, fmtFloat(c.Horizon), fmtFloat(c.Warmup), c.FirstDiffCap)
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
