package main

import (
	"fmt"
	"strconv"
	"strings"

	"herd/cmd/internal/plotting"
	"herd/compare"
	"herd/sim"
)

// plotSim draws response_mean with its 95% interval (t, runs − 1 d.f.) against the first list-valued
// numeric flag (refresh, load, servers, dispatchers), one series per
// policy and per combination of the other varying flags.
func plotSim(path string, sums []sim.Summary, ns, ks []int, loads, ts []float64) error {
	type axis struct {
		name, label string
		n           int
		x           func(c sim.Config) float64
	}
	axes := []axis{
		{"refresh", "board refresh period T (service times)", len(ts), func(c sim.Config) float64 { return c.Refresh }},
		{"load", "load λ", len(loads), func(c sim.Config) float64 { return c.Load }},
		{"servers", "servers N", len(ns), func(c sim.Config) float64 { return float64(c.Servers) }},
		{"dispatchers", "dispatchers k", len(ks), func(c sim.Config) float64 { return float64(c.Dispatchers) }},
	}
	var ax *axis
	for i := range axes {
		if axes[i].n > 1 {
			ax = &axes[i]
			break
		}
	}
	if ax == nil {
		return usagef("--plot needs a list-valued numeric flag (--refresh, --load, --servers or --dispatchers)")
	}
	// Series are keyed by everything but the x value, in row order.
	var order []string
	series := map[string]*plotting.Series{}
	var xs, ys []float64
	for _, s := range sums {
		c := s.Config
		key := seriesName(c, ax.name, ns, ks, loads, ts)
		sr, ok := series[key]
		if !ok {
			sr = &plotting.Series{Name: key}
			series[key] = sr
			order = append(order, key)
		}
		x := ax.x(c)
		sr.X = append(sr.X, x)
		sr.Y = append(sr.Y, s.Response.Mean)
		sr.YErr = append(sr.YErr, ci95(s.Response.SE, s.Response.N))
		xs = append(xs, x)
		ys = append(ys, s.Response.Mean)
	}
	fig := plotting.Figure{
		Title:  simTitle(ax.name, sums[0].Config, ns, ks, loads, ts),
		XLabel: ax.label,
		YLabel: "mean time in system (service times), 95% interval (t, runs − 1)",
		LogX:   plotting.SpansDecades(xs),
		LogY:   plotting.SpansDecades(ys),
	}
	for _, k := range order {
		fig.Series = append(fig.Series, *series[k])
	}
	if err := plotting.Save(fig, path); err != nil {
		return fmt.Errorf("--plot: %w", err)
	}
	return nil
}

// simTitle says what the plot shows: the mean time in system against the
// x flag, with the values the other numeric flags hold fixed.
func simTitle(xname string, c sim.Config, ns, ks []int, loads, ts []float64) string {
	what := map[string]string{"refresh": "the refresh period", "load": "the load", "servers": "the number of servers", "dispatchers": "the number of dispatchers"}[xname]
	var fixed []string
	if xname != "servers" && len(ns) == 1 {
		fixed = append(fixed, "N = "+strconv.Itoa(c.Servers))
	}
	if xname != "dispatchers" && len(ks) == 1 {
		fixed = append(fixed, "k = "+strconv.Itoa(c.Dispatchers))
	}
	if xname != "load" && len(loads) == 1 {
		fixed = append(fixed, "λ = "+strconv.FormatFloat(c.Load, 'g', -1, 64))
	}
	if xname != "refresh" && len(ts) == 1 {
		if c.Refresh == 0 {
			fixed = append(fixed, "live board")
		} else {
			fixed = append(fixed, "T = "+strconv.FormatFloat(c.Refresh, 'g', -1, 64))
		}
	}
	t := "Simulated mean time in system against " + what
	if len(fixed) > 0 {
		t += " (" + strings.Join(fixed, ", ") + ")"
	}
	return t
}

// seriesName names a series by its policy and the other list-valued flags.
func seriesName(c sim.Config, xname string, ns, ks []int, loads, ts []float64) string {
	parts := []string{compare.PolicyName(c.Policy)}
	if c.Tally != sim.TallyNone {
		parts = append(parts, "tally "+c.Tally.String())
	}
	if xname != "servers" && len(ns) > 1 {
		parts = append(parts, "N="+strconv.Itoa(c.Servers))
	}
	if xname != "dispatchers" && len(ks) > 1 {
		parts = append(parts, "k="+strconv.Itoa(c.Dispatchers))
	}
	if xname != "load" && len(loads) > 1 {
		parts = append(parts, "λ="+strconv.FormatFloat(c.Load, 'g', -1, 64))
	}
	if xname != "refresh" && len(ts) > 1 {
		parts = append(parts, "T="+strconv.FormatFloat(c.Refresh, 'g', -1, 64))
	}
	if c.Sizes.Kind != sim.Exp {
		parts = append(parts, c.Sizes.String())
	}
	if c.Start.Kind != sim.StartEmpty {
		parts = append(parts, "start "+c.Start.String())
	}
	return strings.Join(parts, ", ")
}
