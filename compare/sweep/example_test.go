package sweep_test

import (
	"context"
	"fmt"
	"os"

	"herd/compare/sweep"
)

// A sweep of five runs done as two shards (as two Slurm array tasks
// would), then merged: the results are the unsharded ones.
func Example() {
	dir, err := os.MkdirTemp("", "sweep")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	newSweep := func() *sweep.Sweep {
		return &sweep.Sweep{Command: "cube", Version: "1", IDs: []string{"x=0", "x=1", "x=2", "x=3", "x=4"}}
	}
	cube := func(ctx context.Context, idx []int, put func(int, sweep.Float)) error {
		for _, i := range idx {
			put(i, sweep.Float(i*i*i))
		}
		return nil
	}
	for i := range 2 {
		s := newSweep()
		s.Shard = &sweep.Shard{N: 2, I: i, Dir: dir}
		if _, _, err := sweep.Run(context.Background(), s, cube); err != nil {
			panic(err)
		}
	}
	parts, err := sweep.ReadParts(dir, "1", func(c string) bool { return c == "cube" })
	if err != nil {
		panic(err)
	}
	s := newSweep()
	s.Merged = sweep.Merge(parts)
	results, _, err := sweep.Run(context.Background(), s, cube)
	fmt.Println(len(parts), "parts:", parts[0].Owned, parts[1].Owned)
	fmt.Println(results, err)
	// Output:
	// 2 parts: [0 2 4] [1 3]
	// [0 1 8 27 64] <nil>
}
