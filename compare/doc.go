// Package compare runs the finite simulator (package sim) against the
// infinite-server models (package meanfield) and the published figures.
//
//   - Tipping (tipping.go): a run tips when the board's mean
//     stays above θ = max(3/(1−λ), 0.1·T) for 5 refreshes in a row. A herd's
//     backlog grows with T (0.3–0.8·T); a working state's stays of order
//     1/(1−λ) whatever T is, so θ sits inside a 10–30-fold gap near the
//     edge. Nothing in it depends on whether dispatchers reach every server,
//     the test that misfires at λ = 0.8 with 3 dispatchers.
//   - Brackets (bracket.go): the edge at N servers is [last T(1−λ)² where
//     all runs from a balanced start tipped, first above it where at most
//     one did], refined by bisecting its widest gap; runs can be recorded
//     and resumed (Store); Brackets runs one per N, the model's edge
//     computed once. A fixed grid's runs are listed in advance
//     (bracketshard.go: FixedGridRuns), run shard by shard (RunShard,
//     ShardStore) and merged back (RunSet); BracketsFromTable reads a
//     bracket table. Beside the bracket, FitTipHalf (tiphalf.go) fits T_½,
//     where a run tips with probability ½, to all the points (logistic,
//     Firth's penalised likelihood, profile 95% interval): what
//     meanfield.FiniteEdge predicts, with an error the bracket's single
//     end points do not state; HalfWidth goes on after the bracket,
//     running points in full until that interval is narrow enough
//     (refineHalf), without moving the bracket.
//   - Finite-size scaling (scaling.go): edge(N) = edge(∞) + a·N^(−β) fitted
//     to at least 4 brackets, with its χ² and degrees of freedom.
//   - The law (law.go): x_edge = a·(k − b) fitted by least squares
//     (FitLaw), the heavy-traffic limit lim_{λ→1} x_edge by polynomial
//     (Richardson) extrapolation in 1 − λ (HeavyTrafficLimit), and where
//     0.9(k − 2) is within a band of the edge (WithinBand, InBand).
//     law_limit.go: the same limit computed directly as the edge of the
//     heavy-traffic limit map (MapLimit, meanfield.LimitEdge) on two grids.
//   - Model sweeps (edgesweep.go, lawsweep.go, pointsweep.go,
//     modelsweep.go, hysteresissweep.go): the points of herd edge, law,
//     point, model and hysteresis expanded from their lists, computed on
//     the caller's worker pool (Pool; NewPool, pool.go, is herd's) and
//     returned as typed rows; the law's rows carry its fits, limits and
//     verdicts (AnalyseLaw). The refresh map's inputs herd accepts, with
//     their reasons, are in limits.go; a start state's board for the map
//     is meanfield.StartBoardAt.
//   - Simulator sweeps (simsweep.go, ballsweep.go): one configuration per
//     combination of lists (SimGrid), their seeded runs (SimTasks), a
//     tipping watch over each run, and each row's summary and warnings
//     (SimRows); balls into bins likewise (BallsRows).
//   - herd plan (plan.go, planrun.go, planverdict.go): a fleet in herd's
//     units, its model and the changes to weigh, the simulator's runs at
//     its N (Plan), and the verdict and ranking read off the result
//     (NewPlanVerdict, RankPlanOptions).
//   - Validation (validate.go, checks.go): one Row per check of the
//     published figures (validation.md, embedded as Table): pass, fail, or
//     disputed where the table records an independent re-run and herd
//     agrees with it; simulated means are judged in Student-t bands
//     (Band, FalseAlarm).
//   - Figures (figure*.go): the experiments behind each published figure,
//     which runs and model points make each series (Figures, MakeFigures).
//     They return series data (FigurePlot, FigureSeries); cmd/herd draws
//     and writes them, and the index FigureIndex writes (figureindex.go).
//     The figures run at once through one pool of workers that makes a
//     run or model edge two figures share only once; every seed is
//     derived before work starts, so the numbers do not depend on the
//     worker count or the order work finishes in.
//   - The commands' plots (plots.go): SimPlot, BallsPlot, BracketPlot and
//     HysteresisPlot say which points make which series of --plot, as
//     FigurePlots.
//
// compare returns typed rows; cmd/herd prints them.
package compare
