package compare

import (
	"context"

	"herd/internal/pool"
)

// NewPool returns a Pool on pool.Parallel, herd's one worker pool: at most
// workers calls at once, none started once ctx is cancelled. Work writes
// its result by index, so the output never depends on the number of
// workers. After a cancellation the Pool returns once the calls in flight
// have returned (they cannot be interrupted; a call that returns after
// the cancellation counts as not finished), so the caller reads results
// no worker still writes. notify, if set, is called serially after each
// finished call i with the calls done so far of the n the Pool was given.
func NewPool(ctx context.Context, workers int, notify func(i, done, n int)) Pool {
	return func(n int, work func(i int)) []bool {
		var fin func(int, struct{}, int)
		if notify != nil {
			fin = func(i int, _ struct{}, done int) { notify(i, done, n) }
		}
		_, done := pool.Parallel(ctx, n, workers, func(i int) (struct{}, bool) {
			work(i)
			return struct{}{}, ctx.Err() == nil
		}, fin)
		return done
	}
}
