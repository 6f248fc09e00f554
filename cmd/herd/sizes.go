package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"herd/cmd/internal/table"
	"herd/compare"
	"herd/fleet"
	"herd/meanfield"
)

// sizesValues is the help text of the model commands' --sizes flag.
var sizesValues = fmt.Sprintf("exp, h2:C (hyperexponential, balanced means, squared CV C in [1, %g]), erlang:K (K in [1, %d] phases, squared CV 1/K)",
	float64(meanfield.MaxServiceSCV), meanfield.MaxServicePhases)

// addSizesFlag adds --sizes (default exp) for a command whose model is
// the refresh map (phase-type sizes only).
func addSizesFlag(fs *pflag.FlagSet, what string) *string {
	return sizesFlag(fs, what, sizesValues)
}

// modelSizes parses --sizes for the refresh map: the fleet's job-size law
// and the model's service law, or a usage error naming the flag.
func modelSizes(s string) (fleet.Sizes, meanfield.Service, error) {
	z, err := fleet.ParseSizes(s)
	if err != nil {
		return z, meanfield.Service{}, usagef("--sizes %q: want %s", s, sizesValues)
	}
	svc, err := compare.ModelService(z)
	if err != nil {
		if z.Kind == fleet.H2 || z.Kind == fleet.Erlang {
			return z, svc, usagef("--sizes %q: out of the refresh map's range: %s", s, sizesValues)
		}
		return z, svc, usagef("--sizes %q: the refresh map needs phase-type sizes: %s", s, sizesValues)
	}
	return z, svc, nil
}

// sizesMeta is the table's meta field for the sizes.
func sizesMeta(svc meanfield.Service) table.Field {
	return table.Field{Key: "sizes", Value: svc.String()}
}

// sizesNote says, for sizes other than exp, what the model carries and
// how it classifies balanced states.
func sizesNote(svc meanfield.Service) string {
	return fmt.Sprintf("sizes %s: the refresh map carries the joint law of (queue, phase of the job in service); balanced means a board mean ≤ 1.2·max(1, C)/(1−λ) = %.4g/(1−λ), C the sizes' squared coefficient of variation",
		svc, meanfield.BalancedQueueScale*svc.QueueScale())
}

// addSizes records non-exponential sizes in t's meta and notes (nothing
// for exp, so exponential outputs are unchanged).
func addSizes(t *table.Table, svc meanfield.Service, law bool) {
	if svc.Kind == meanfield.ServiceExp {
		return
	}
	t.Meta = append(t.Meta, sizesMeta(svc))
	t.Notes = append(t.Notes, sizesNote(svc))
	if law {
		t.Notes = append(t.Notes, "law_scaled and ratio compare with 0.9(k−2), the law of exponential sizes")
	}
}

// sizesID is " sizes=S" for a sweep id with sizes other than exp ("" for
// exp, so exponential ids are unchanged).
func sizesID(svc meanfield.Service) string {
	if svc.Kind == meanfield.ServiceExp {
		return ""
	}
	return " sizes=" + svc.String()
}
