package table

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// cellKind classifies a cell after normalisation.
type cellKind int

const (
	kindMissing cellKind = iota // nil, NaN or ±Inf
	kindInt
	kindFloat
	kindBool
	kindString
)

// cell is a normalised cell: exactly one of i, f, b, s is meaningful.
type cell struct {
	kind cellKind
	i    int64
	f    float64
	b    bool
	s    string
}

// normalise maps a cell value to one of the five kinds. NaN and ±Inf are
// missing values: nothing herd writes may print NaN.
func normalise(v any) cell {
	switch x := v.(type) {
	case nil:
		return cell{}
	case string:
		return cell{kind: kindString, s: x}
	case bool:
		return cell{kind: kindBool, b: x}
	case int:
		return cell{kind: kindInt, i: int64(x)}
	case int64:
		return cell{kind: kindInt, i: x}
	case int32:
		return cell{kind: kindInt, i: int64(x)}
	case int16:
		return cell{kind: kindInt, i: int64(x)}
	case int8:
		return cell{kind: kindInt, i: int64(x)}
	case uint32:
		return cell{kind: kindInt, i: int64(x)}
	case uint16:
		return cell{kind: kindInt, i: int64(x)}
	case uint8:
		return cell{kind: kindInt, i: int64(x)}
	case uint, uint64:
		// May not fit in int64; write the exact decimal as a number-like
		// string rather than wrapping around.
		u := fmt.Sprint(x)
		if n, err := strconv.ParseInt(u, 10, 64); err == nil {
			return cell{kind: kindInt, i: n}
		}
		return cell{kind: kindString, s: u}
	case float64:
		return floatCell(x)
	case float32:
		return floatCell(float64(x))
	default:
		return cell{kind: kindString, s: fmt.Sprint(x)}
	}
}

func floatCell(f float64) cell {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return cell{}
	}
	if f == 0 {
		f = 0 // no "-0"
	}
	return cell{kind: kindFloat, f: f}
}

// numeric reports whether the cell is right-aligned in text output.
func (c cell) numeric() bool {
	return c.kind == kindInt || c.kind == kindFloat
}

// formatText formats f with the given number of significant digits for
// people: never in exponent notation for 1e-4 <= |f| < 1e9, and without
// trailing zeros after the decimal point. Integer digits are never dropped,
// so 12345.6 with 4 digits prints 12346.
func formatText(f float64, digits int) string {
	switch {
	case digits <= 0:
		digits = 4
	case digits > 17:
		digits = 17
	}
	if f == 0 {
		return "0"
	}
	a := math.Abs(f)
	if a < 1e-4 || a >= 1e9 {
		return strconv.FormatFloat(f, 'g', digits, 64)
	}
	// The decimal exponent after rounding to digits significant digits:
	// 9.99996 rounds to 1.000e+01, so it prints 10.00 -> "10", not 10.000.
	e := strconv.FormatFloat(a, 'e', digits-1, 64)
	exp, err := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if err != nil { // cannot happen: 'e' format always has an exponent
		return strconv.FormatFloat(f, 'g', digits, 64)
	}
	decimals := max(digits-1-exp, 0)
	s := strconv.FormatFloat(f, 'f', decimals, 64)
	if decimals > 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}
