package compare

import (
	"fmt"

	"herd/meanfield"
	"herd/sim"
)

// ModelService returns the refresh map's service law for the simulator's
// job sizes: exp, h2:C (balanced means, the same law) and erlang:K. The
// other families (det, pareto:A) are not phase-type and have no refresh
// map; they return an error naming them.
func ModelService(z sim.Sizes) (meanfield.Service, error) {
	switch z.Kind {
	case sim.Exp:
		return meanfield.ExpService(), nil
	case sim.H2:
		s := meanfield.H2Service(z.Param)
		return s, s.Validate()
	case sim.Erlang:
		s := meanfield.ErlangService(int(z.Param))
		if float64(s.Phases) != z.Param {
			return s, fmt.Errorf("compare: sizes %s: K must be an integer", z)
		}
		return s, s.Validate()
	}
	return meanfield.Service{}, fmt.Errorf("compare: sizes %s have no refresh map (phase-type only: exp, h2:C, erlang:K)", z)
}
