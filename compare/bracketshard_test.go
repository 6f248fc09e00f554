package compare

import (
	"context"
	"math"
	"testing"
)

// A fixed-grid bracket split over two shards (ShardStore) and put back
// together (RunSet) is the unsplit bracket, point for point, with no run
// simulated at the merge and each run simulated by exactly one shard.
func TestFixedGridShards(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := BracketSettings{Servers: 25, Dispatchers: 5, Load: 0.9, Runs: 3, Refreshes: 40, Cut: 20,
		Grid: []float64{1, 2, 2, 4}, Fixed: true, ModelScaled: 2.8992 /* herd edge, k = 5, λ = 0.9 */}
	full, err := Bracket(ctx, s, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	recs := FixedGridRuns([]BracketSettings{s, s}) // a repeated N and grid value are listed once
	if want := 3 * 3; len(recs) != want {
		t.Fatalf("%d runs listed, want %d (3 distinct grid values × 3 runs)", len(recs), want)
	}
	tipped := map[int]int{}
	for shard := range 2 {
		var own []int
		for i := shard; i < len(recs); i += 2 {
			own = append(own, i)
		}
		st := NewShardStore(recs, own, func(i int, r RunRecord) {
			if _, dup := tipped[i]; dup || i%2 != shard {
				t.Errorf("run %d put twice or by shard %d", i, shard)
			}
			tipped[i] = r.TippedAt
		})
		if !st.OwnsAny(s) {
			t.Fatalf("shard %d owns none of the runs", shard)
		}
		if _, err := Bracket(ctx, s, st, nil); err != nil || st.Err() != nil {
			t.Fatalf("shard %d: %v, %v", shard, err, st.Err())
		}
	}
	if len(tipped) != len(recs) {
		t.Fatalf("%d of %d runs done by the shards", len(tipped), len(recs))
	}
	set := RunSet{}
	for i, r := range recs {
		r.TippedAt = tipped[i]
		set[r.Key()] = r
	}
	merged, err := Bracket(ctx, s, set, nil)
	if err != nil {
		t.Fatal(err)
	}
	if merged.Runs != 0 {
		t.Errorf("the merge simulated %d runs, want 0", merged.Runs)
	}
	same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
	if !same(merged.Lower, full.Lower) || !same(merged.Upper, full.Upper) || len(merged.Points) != len(full.Points) {
		t.Fatalf("merged [%v, %v] (%d points), unsplit [%v, %v] (%d points)",
			merged.Lower, merged.Upper, len(merged.Points), full.Lower, full.Upper, len(full.Points))
	}
	for i, p := range full.Points {
		q := merged.Points[i]
		if q.Tipped != p.Tipped || q.TippedCut != p.TippedCut || q.Runs != p.Runs || !same(q.MedianTip, p.MedianTip) {
			t.Errorf("point %d: merged %+v, unsplit %+v", i, q, p)
		}
	}
	if err := set.Put(recs[0]); err == nil {
		t.Error("RunSet.Put accepted a run")
	}
}
