package sweep

import (
	"fmt"
	"math"
	"strconv"
)

// Float is a float64 that round-trips through JSON exactly, NaN and ±Inf
// included (as the strings "NaN", "+Inf", "-Inf"; encoding/json refuses
// them as numbers), for the fields of a run's result.
type Float float64

// MarshalJSON writes x in the shortest form that reads back exactly.
func (x Float) MarshalJSON() ([]byte, error) {
	f := float64(x)
	switch {
	case math.IsNaN(f):
		return []byte(`"NaN"`), nil
	case math.IsInf(f, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Inf"`), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// UnmarshalJSON reads a number, or one of the strings "NaN", "+Inf",
// "-Inf".
func (x *Float) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(s) >= 2 && s[0] == '"' {
		s = s[1 : len(s)-1]
		if s != "NaN" && s != "+Inf" && s != "-Inf" {
			return fmt.Errorf("not a number: %q", s)
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("not a number: %s", b)
	}
	*x = Float(f)
	return nil
}
