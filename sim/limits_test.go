package sim

import (
	"errors"
	"math"
	"strings"
	"testing"

	"herd/fleet"
)

// TestLimits: sizes beyond the limits are refused before anything is
// allocated, naming the field; overflowing numbers are refused, never
// wrapped (issue 14).
func TestLimits(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		c     Config
		field string
	}{
		{"servers", Config{Servers: MaxServers + 1}, "Servers"},
		{"dispatchers", Config{Dispatchers: MaxDispatchers + 1}, "Dispatchers"},
		{"sqd D", Config{Policy: fleet.Policy{Kind: fleet.BestOfD, D: MaxProbes + 1, WithReplacement: true}}, "Policy"},
		{"firstdiff D", Config{Policy: fleet.Policy{Kind: fleet.FirstDiff, D: MaxProbes + 1}}, "Policy"},
		{"start 1e308", Config{Start: fleet.Start{Kind: fleet.StartBalanced, Value: 1e308}}, "Start"},
		{"start 1e308 T", Config{Refresh: 10, Start: fleet.Start{Kind: fleet.StartHalf, Value: 1e308, PerRefresh: true}}, "Start"},
		{"start total", Config{Servers: 1000, Start: fleet.Start{Kind: fleet.StartBalanced, Value: MaxStartJobs/1000 + 1}}, "Start"},
		{"start NaN", Config{Start: fleet.Start{Kind: fleet.StartSingle, Value: math.NaN()}}, "Start"},
		{"arrivals", Config{Servers: 1000, Horizon: 2e12}, "Horizon"},
		{"refreshes", Config{Refresh: 1e-9, Horizon: 10}, "Refresh"},
		{"live samples", Config{Load: 1e-300, Horizon: 1e300}, "Horizon"},
		{"memory", Config{Dispatchers: MaxDispatchers, Policy: fleet.Policy{Kind: fleet.LeastLoaded}, Tally: TallyScaled, Refresh: 1}, "Dispatchers"},
	}
	for _, tc := range cases {
		err := tc.c.Validate()
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != tc.field || !errors.Is(err, ErrConfig) {
			t.Errorf("%s: got %v, want a ConfigError on %s", tc.name, err, tc.field)
		}
	}
	// At the limits themselves the configuration is valid.
	ok := []Config{
		{Servers: MaxServers, Horizon: 1},
		{Policy: fleet.Policy{Kind: fleet.BestOfD, D: MaxProbes, WithReplacement: true}},
		{Servers: 1000, Start: fleet.Start{Kind: fleet.StartBalanced, Value: MaxStartJobs / 1000}},
		{Refresh: 1e-5, Horizon: 1e4},
	}
	for _, c := range ok {
		if err := c.Validate(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
	if f := (Config{Servers: 1000, Start: fleet.Start{Kind: fleet.StartBalanced, Value: 1e308}}).Footprint(); !(f > MaxRunBytes) || strings.Contains(fmtFloat(f), "NaN") {
		t.Errorf("Footprint of a 1e308 start = %v, want a huge finite or +Inf number", f)
	}
}
