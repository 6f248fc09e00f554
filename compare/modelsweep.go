package compare

// Pool runs work(i) for i in [0, n) in parallel and reports which calls
// finished (done[i] false for a call not started, or dropped when the
// work was cancelled). The model sweeps run on the command line's one
// worker pool through it; work writes its result by index, so the results
// never depend on the number of workers.
type Pool func(n int, work func(i int)) (done []bool)
