package compare

import (
	"fmt"

	"herd/fleet"
	"herd/meanfield"
)

// ModelService returns the refresh map's service law for a fleet's
// job-size law: exp, h2:C (balanced means, the same law) and erlang:K. The
// other families (det, pareto:A) are not phase-type and have no refresh
// map; they return an error naming them. It is the one map from fleet's
// laws to meanfield's phase-type service (meanfield's package doc, §2); the
// simulator draws from the same fleet.Sizes.
func ModelService(z fleet.Sizes) (meanfield.Service, error) {
	switch z.Kind {
	case fleet.Exp:
		return meanfield.ExpService(), nil
	case fleet.H2:
		s := meanfield.H2Service(z.Param)
		return s, s.Validate()
	case fleet.Erlang:
		s := meanfield.ErlangService(int(z.Param))
		if float64(s.Phases) != z.Param {
			return s, fmt.Errorf("compare: sizes %s: K must be an integer", z)
		}
		return s, s.Validate()
	}
	return meanfield.Service{}, fmt.Errorf("compare: sizes %s have no refresh map (phase-type only: exp, h2:C, erlang:K)", z)
}
