package compare

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// BracketsFromTable reads brackets back from herd bracket's table: a
// header row (servers, dispatchers, load, runs, refreshes, lower_scaled,
// upper_scaled, model_scaled, lower_scaled_300, upper_scaled_300 and,
// since herd 0.1, cut, points, resolution, seed, then half_scaled,
// half_lower, half_upper where the table has them) and one row per N, as the
// CSV writer wrote them (an empty cell is NaN). Points holds as many zero
// PointStats as the table counted (up to 10,000), for their number only.
func BracketsFromTable(recs [][]string) ([]BracketResult, error) {
	if len(recs) < 2 || len(recs[0]) < 10 || recs[0][0] != "servers" || recs[0][5] != "lower_scaled" {
		return nil, errors.New("not a herd bracket CSV (want the columns servers,dispatchers,load,runs,refreshes,lower_scaled,…)")
	}
	num := func(s string) float64 {
		if s == "" {
			return math.NaN()
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return math.NaN()
		}
		return x
	}
	col := map[string]int{}
	for i, name := range recs[0] {
		col[name] = i
	}
	cell := func(r []string, name string) float64 {
		if i, ok := col[name]; ok && i < len(r) {
			return num(r[i])
		}
		return math.NaN()
	}
	var out []BracketResult
	for _, r := range recs[1:] {
		n, err := strconv.Atoi(r[0])
		if err != nil {
			return nil, fmt.Errorf("servers %q", r[0])
		}
		k, _ := strconv.Atoi(r[1])
		runs, _ := strconv.Atoi(r[3])
		refr, _ := strconv.Atoi(r[4])
		br := BracketResult{
			Settings: BracketSettings{Servers: n, Dispatchers: k, Load: num(r[2]), Runs: runs, Refreshes: refr, Cut: 300},
			Lower:    num(r[5]), Upper: num(r[6]), ModelScaled: num(r[7]), LowerCut: num(r[8]), UpperCut: num(r[9]),
		}
		if len(r) >= 14 { // cut, points, resolution, seed
			br.Settings.Cut, _ = strconv.Atoi(r[10])
			if p, err := strconv.Atoi(r[11]); err == nil && p >= 0 && p <= 10_000 {
				br.Points = make([]PointStat, p)
			}
			br.Settings.Resolution = num(r[12])
			br.Settings.Seed, _ = strconv.ParseUint(r[13], 10, 64)
		}
		// Empty where the table lacks them (written before herd bracket
		// had them) or left them empty; its warnings said why.
		br.Half = TipHalf{Scaled: cell(r, "half_scaled"), Lower: cell(r, "half_lower"), Upper: cell(r, "half_upper"), Slope: math.NaN()}
		out = append(out, br)
	}
	return out, nil
}
