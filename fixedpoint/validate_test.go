package fixedpoint

import (
	"math"
	"testing"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		err  error
	}{
		{"ArnoldiTol", (&ArnoldiSettings{Tol: math.Inf(1)}).Validate()},
		{"DiffStep", (&DiffSettings{Step: 2}).Validate()},
		{"SpectrumStep", (&SpectrumSettings{Step: -1}).Validate()},
		{"FollowMaxStep", (&FollowSettings{MaxStep: 1}).Validate()},
		{"SweepBisect", (&SweepSettings{Bisect: math.NaN()}).Validate()},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: Validate accepted an invalid setting", c.name)
		}
	}
	for _, v := range []interface{ Validate() error }{&SpectrumSettings{}, &ArnoldiSettings{}, &DiffSettings{},
		&FollowSettings{}, &SweepSettings{}} {
		if err := v.Validate(); err != nil {
			t.Errorf("zero value %T: %v", v, err)
		}
	}
}
