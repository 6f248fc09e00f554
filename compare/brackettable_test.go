package compare

import (
	"math"
	"strings"
	"testing"
)

// BracketsFromTable reads herd bracket's CSV rows: empty cells are NaN,
// the old ten-column form defaults the cut to 300, and a table of another
// command is refused.
func TestBracketsFromTable(t *testing.T) {
	t.Parallel()
	header := strings.Split("servers,dispatchers,load,runs,refreshes,lower_scaled,upper_scaled,model_scaled,lower_scaled_300,upper_scaled_300,cut,points,resolution,seed", ",")
	got, err := BracketsFromTable([][]string{header,
		strings.Split("25,5,0.9,6,1000,2.1,2.4,2.8992,,2.2,300,9,0.05,7", ","),
		strings.Split("100,5,0.9,6,1000,2.5,2.6,2.8992,2.4,2.7", ",")})
	if err != nil {
		t.Fatal(err)
	}
	a, b := got[0], got[1]
	if a.Settings.Servers != 25 || a.Lower != 2.1 || !math.IsNaN(a.LowerCut) || len(a.Points) != 9 || a.Settings.Seed != 7 || a.Settings.Resolution != 0.05 {
		t.Errorf("row 1: %+v", a)
	}
	if b.Settings.Cut != 300 || b.UpperCut != 2.7 || b.Points != nil {
		t.Errorf("row 2 (ten columns): %+v", b)
	}
	if !math.IsNaN(a.Half.Scaled) || !math.IsNaN(b.Half.Upper) {
		t.Errorf("no half_* columns: %+v, %+v, want NaN", a.Half, b.Half)
	}
	// Since herd bracket has them, the half_* columns are read by name.
	h2 := append(append([]string(nil), header...), "half_scaled", "half_lower", "half_upper")
	got, err = BracketsFromTable([][]string{h2, strings.Split("25,5,0.9,6,1000,2.1,2.4,2.8992,,2.2,300,9,0.05,7,2.3,2.2,", ",")})
	if err != nil {
		t.Fatal(err)
	}
	if h := got[0].Half; h.Scaled != 2.3 || h.Lower != 2.2 || !math.IsNaN(h.Upper) {
		t.Errorf("half_*: %+v, want 2.3, 2.2, NaN", h)
	}
	if _, err := BracketsFromTable([][]string{{"dispatchers", "load"}, {"5", "0.9"}}); err == nil || !strings.Contains(err.Error(), "not a herd bracket CSV") {
		t.Errorf("another table: %v", err)
	}
	if _, err := BracketsFromTable([][]string{header, strings.Split("x,5,0.9,6,1000,2.1,2.4,2.8992,,2.2,300,9,0.05,7", ",")}); err == nil || err.Error() != `servers "x"` {
		t.Errorf("bad servers: %v", err)
	}
}
