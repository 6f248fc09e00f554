package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// splitList splits a comma list, trimming blanks; an empty item is an error.
func splitList(flag, s string) ([]string, error) {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
		if parts[i] == "" {
			return nil, usagef("--%s %q: empty item in the list", flag, s)
		}
	}
	return parts, nil
}

// intList parses a comma list of integers, each at least lo.
func intList(flag, s string, lo int) ([]int, error) {
	return ints(flag, s, func(v int) bool { return v >= lo }, fmt.Sprintf("an integer ≥ %d", lo))
}

// intListIn parses a comma list of integers in [lo, hi]; why, if not
// empty, says whose range it is.
func intListIn(flag, s string, lo, hi int, why string) ([]int, error) {
	want := fmt.Sprintf("an integer in [%d, %d]", lo, hi)
	if why != "" {
		want += " (" + why + ")"
	}
	return ints(flag, s, func(v int) bool { return v >= lo && v <= hi }, want)
}

// ints parses a comma list of integers accepted by ok; want describes them
// for the message.
func ints(flag, s string, ok func(int) bool, want string) ([]int, error) {
	parts, err := splitList(flag, s)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(parts))
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || !ok(v) {
			return nil, usagef("--%s %s: want %s", flag, p, want)
		}
		out[i] = v
	}
	return out, nil
}

// modelDispatchersList parses --dispatchers of a command whose every k
// goes to the refresh map, naming its whole range whichever end is
// broken.
func modelDispatchersList(s string) ([]int, error) {
	return intListIn("dispatchers", s, 1, modelMaxDispatchers, "the refresh map's range")
}

// floatList parses a comma list of finite numbers accepted by ok; want
// describes the allowed range for the message.
func floatList(flag, s string, ok func(float64) bool, want string) ([]float64, error) {
	parts, err := splitList(flag, s)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || !ok(v) {
			return nil, usagef("--%s %s: want %s", flag, p, want)
		}
		out[i] = v
	}
	return out, nil
}

// parsedList parses a comma list with parse, prefixing errors with the flag
// in place of the parser's package (sim, fleet).
func parsedList[T any](flag, s string, parse func(string) (T, error)) ([]T, error) {
	parts, err := splitList(flag, s)
	if err != nil {
		return nil, err
	}
	out := make([]T, len(parts))
	for i, p := range parts {
		v, err := parse(p)
		if err != nil {
			return nil, usagef("--%s: %s", flag, strings.TrimPrefix(strings.TrimPrefix(err.Error(), "sim: "), "fleet: "))
		}
		out[i] = v
	}
	return out, nil
}

func inOpenUnit(v float64) bool  { return v > 0 && v < 1 }
func nonNegative(v float64) bool { return v >= 0 }
func positive(v float64) bool    { return v > 0 }
