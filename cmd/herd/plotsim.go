package main

import (
	"errors"

	"herd/compare"
	"herd/sim"
)

// plotSim draws herd sim's plot (compare.SimPlot), with logarithmic axes
// where the values span decades.
func plotSim(path string, sums []sim.Summary, l *simLists) error {
	p, err := compare.SimPlot(sums, l.Servers, l.Dispatchers, l.Loads, l.Refreshes)
	if errors.Is(err, compare.ErrNoPlotAxis) {
		return usagef("--plot needs a list-valued numeric flag (--refresh, --load, --servers or --dispatchers)")
	}
	if err != nil {
		return err
	}
	logAxes(p, true, true)
	return savePlot(path, p)
}
