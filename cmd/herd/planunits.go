package main

import (
	"bufio"
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"herd/compare"
	"herd/fleet"
)

// This file converts herd plan's operator units (durations, request
// rates, a file of observed service times) into herd's: mean service
// times, the per-server load λ and a job-size law of mean 1.

// parseDuration reads a positive Go duration (250ms, 1s, 1m30s) for
// --flag; a bare number is refused, since its unit would be a guess.
func parseDuration(flag, s string) (time.Duration, error) {
	d, err := durationText(s)
	if err != nil {
		return 0, usagef("--%s %q: %v", flag, s, err)
	}
	return d, nil
}

// durationText is parseDuration without the flag's name.
func durationText(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		if _, numErr := strconv.ParseFloat(strings.TrimSpace(s), 64); numErr == nil {
			return 0, errors.New("a duration needs a unit: 250ms, 1s, 2m (Go durations: ns, us, ms, s, m, h)")
		}
		return 0, errors.New("want a Go duration such as 250ms, 1s or 2m")
	}
	if d <= 0 {
		return 0, errors.New("want a duration > 0")
	}
	return d, nil
}

// durationValue is a pflag value holding a positive duration that must
// carry its unit (durationText); its type is "duration", as pflag's own.
type durationValue struct{ d time.Duration }

func (v *durationValue) String() string {
	if v.d == 0 {
		return ""
	}
	return v.d.String()
}

func (v *durationValue) Set(s string) error {
	d, err := durationText(s)
	if err != nil {
		return err
	}
	v.d = d
	return nil
}

func (v *durationValue) Type() string { return "duration" }

// rateUnits are the time units a --rate may be given per.
var rateUnits = map[string]time.Duration{
	"s": time.Second, "sec": time.Second, "ms": time.Millisecond, "us": time.Microsecond, "µs": time.Microsecond,
	"m": time.Minute, "min": time.Minute, "h": time.Hour,
}

// parseRate reads a request rate "3200/s" (also /ms, /min, /h) for the
// whole fleet, in requests per second.
func parseRate(s string) (float64, error) {
	num, unit, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return 0, usagef("--rate %q: a rate needs a unit: 3200/s (per s, ms, min or h)", s)
	}
	per, known := rateUnits[strings.TrimSpace(unit)]
	if !known {
		return 0, usagef("--rate %q: unknown unit %q: want /s, /ms, /min or /h", s, unit)
	}
	r, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || !(r > 0) || math.IsInf(r, 0) {
		return 0, usagef("--rate %q: want a positive number of requests per %s", s, unit)
	}
	return r / per.Seconds(), nil
}

// planLoad is the per-server load λ of a fleet of n servers taking rate
// requests per second of mean service time svc: λ = rate·svc/n. A rate at
// or above the fleet's capacity n/svc is refused, naming it.
func planLoad(rate float64, svc time.Duration, n int) (float64, error) {
	capacity := float64(n) / svc.Seconds()
	lam := rate / capacity
	if !(lam < 1) {
		return 0, usagef("--rate %s/s is at or above the fleet's capacity %s/s (--servers %d / --service %v): the queues grow without bound; want a rate below capacity",
			fmtNum(rate), fmtNum(capacity), n, svc)
	}
	if lam < modelMinLoad {
		return 0, usagef("--rate %s/s: load λ = rate × service / servers = %.3g, want at least %g", fmtNum(rate), lam, modelMinLoad)
	}
	return lam, nil
}

// fmtNum writes a number as herd's tables do (shortest form).
func fmtNum(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// readServiceTimes reads --sizes-file: one service time per line, in
// unit (a number of them per line's value); blank lines and lines starting
// with # are skipped. Any other line must be a number ≥ 0 (a time
// rounded to 0 is a measurement too).
func readServiceTimes(path string, unit time.Duration) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usagef("--sizes-file: %v", err)
	}
	defer f.Close()
	var xs []float64
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || !(x >= 0) || math.IsInf(x, 0) {
			return nil, usagef("--sizes-file %s: line %d is %q: want one service time ≥ 0 per line (in --sizes-unit, %v)", path, line, s, unit)
		}
		xs = append(xs, x*unit.Seconds())
	}
	if err := sc.Err(); err != nil {
		return nil, usagef("--sizes-file %s: %v", path, err)
	}
	if len(xs) < compare.FitMinSamples {
		return nil, usagef("--sizes-file %s: %d service times, want at least %d to fit a law and see its 99th percentile", path, len(xs), compare.FitMinSamples)
	}
	return xs, nil
}

// planSizes is the fleet's job-size law and mean service time: from
// --sizes and --service, or fitted to --sizes-file (whose mean is the
// service time unless --service is given).
type planSizes struct {
	sizes   fleet.Sizes
	service time.Duration
	fit     *compare.SizesFit // nil without --sizes-file
}

// sizesFromFile fits the law of --sizes-file; service, if not 0, is the
// mean service time the fleet runs at instead of the file's.
func sizesFromFile(path string, unit, service time.Duration) (planSizes, error) {
	xs, err := readServiceTimes(path, unit)
	if err != nil {
		return planSizes{}, err
	}
	fit, err := compare.FitSizes(xs)
	if err != nil {
		return planSizes{}, usagef("--sizes-file %s: %v", path, err)
	}
	p := planSizes{sizes: fit.Sizes, service: service, fit: &fit}
	if service == 0 {
		p.service = time.Duration(fit.Mean * float64(time.Second))
	}
	if p.service <= 0 {
		return planSizes{}, usagef("--sizes-file %s: mean service time %gs is below a nanosecond", path, fit.Mean)
	}
	return p, nil
}

// fmtDuration writes x seconds as a duration rounded to 4 significant
// digits (1.234s, 56.78ms).
func fmtDuration(sec float64) string {
	if math.IsNaN(sec) || math.IsInf(sec, 0) {
		return "-"
	}
	return printedDuration(sec).String()
}

// printedDuration is sec as fmtDuration prints it: a time.Duration
// rounded to four significant digits (none below a nanosecond).
func printedDuration(sec float64) time.Duration {
	d := time.Duration(sec * float64(time.Second))
	if d <= 0 {
		return d
	}
	digits := int(math.Floor(math.Log10(float64(d)))) + 1
	if digits > 4 {
		p := time.Duration(math.Pow10(digits - 4))
		d = d.Round(p)
	}
	return d
}
