package main

import (
	"maps"
	"slices"
)

// The long help: what a command computes, its columns, its method and its
// caveats, printed by herd help CMD (and herd CMD -h) after the flag list,
// which is generated from the flag definitions. These texts state no wall
// times (TestHelpNoWallTimes): a time depends on the machine, and no test
// keeps it true.

// commandHelp maps a command's name to its long description.
var commandHelp = map[string]string{
	"edge": `What it computes. For each dispatcher count k and load λ, the tipping point
of the balanced state from the infinite-server refresh map (go doc
herd/meanfield, §5): the lowest refresh period T of the balanced range that
extends up to long periods, where the map iterated from each low board
(empty, all servers at 1, all at 3) converges to a balanced fixed point.
It works for k = 1 … 256 and any load as long as the edge lies below
T = 10⁶. The law of thumb is T_edge(1−λ)² ≈ 0.9(k−2).

How it searches (meanfield.Edge). From the law's estimate (--branch-from)
it climbs by factors of 1.25 until every low board reaches the balanced
state (the footing), follows that balanced fixed point down by continuation
until it is lost (bracketed to --tolerance), and probes six points below
each loss, a quarter window k/λ (at most 0.5% of T) apart, for a balanced
range locked in another window; a range found there is followed down in
turn. Reachability is not monotone in T, so ranges above the edge in which
no low board reaches the balanced state are reported in gaps. The search
never bisects across territory it has not walked: a balanced range is
missed only if it is narrower than the probe spacing or lies more than six
probe spacings below the last loss. The edge reported is always confirmed
from the cold low boards; --confirm checks it again by plain iteration.
Accelerated runs (Anderson's update on one smooth piece of the map, or a
geometric jump where the board mean creeps towards the balanced state at a
steady slow rate) end only where a plain map moves the board by less than
the tolerance, and a run that then fails is run again plainly, so every
"not reached" is plain iteration's.

Long searches (--checkpoint FILE). A search near λ = 1 or with heavy-tailed
sizes makes thousands of slow maps. With --checkpoint, each search's journal (every
iteration run it finished, the herd's classification and the spectra, and
the last boards of the plain runs in progress) is kept in FILE, written
atomically at the start, every --checkpoint-every, as each search ends, and
on Ctrl-C or SIGTERM;
the same command with the same FILE takes what the journal holds instead of
computing it and prints the bytes an uninterrupted run prints, whatever
--workers. A FILE made for other arguments or another version is refused.
With --servers, --checkpoint keeps each cell's finished particle runs; a
run stopped part way starts again from the empty board, and the map's edge
is searched again (before any particle run, stopped by Ctrl-C within a map)
unless --model-edge gives it.
Until the first edge ends, the heartbeat's time left is the cost model's
(√k/(1−λ)³, times 15·max(C, 1/C)^2.4 for sizes other than exp, scaled
from k = 5, λ = 0.99 to this machine by a 30-map probe of its speed);
then the pace measured. Once a
search's branch has failed once, its line also says how long it has left
(the runs its bisection, scan and confirmation still need, at the maps of
its slowest failing run and its own pace; in the herd's classification,
the maps it has left at the cost of its last), and once every edge has
started the head line's time left is the longest of those.

Columns (CSV order): dispatchers, load, method (exact or expansion, below),
edge_refresh (T_edge), edge_scaled (x = T_edge(1−λ)²), edge_error (the
expansion's error estimate in x; empty for an exact edge, which is good to
--tolerance), branch_scaled (the edge found by following
the balanced branch down from the footing), law_scaled (0.9(k−2)), ratio
(edge_scaled/law_scaled), crossing (how the branch is lost at its lowest
point: border, the stable node meeting a window boundary; flip or fold, a
smooth eigenvalue crossing; unclassified; none, no edge down to
T(1−λ)² = 0.02), node_radius (spectral radius of the stable node there),
herd, herd_period, herd_board_mean (the attractor just below the edge:
fixed, periodic or aperiodic; - when not classified within its budget: use
--herd), saddle_eigenvalue (the unstable partner's leading eigenvalue), maps
(refresh-map applications), gaps (ranges lo–hi of T(1−λ)² above the edge
where no low board reaches the balanced state, ends to about 10⁻³); with
--confirm also above_reached (the first low board that reaches the balanced
state at T_edge(1+10⁻⁴)) and below_balanced and below_undecided (how many
reach it at T_edge(1−10⁻⁴), how many are still unclassified there after
--confirm-maps maps; 0 and 0 confirm the edge). The check's runs go on --workers at
once and are kept in --checkpoint's file, part way too. Text output ends
with the largest deviation from the law at each load.

Phase-type sizes (--sizes h2:C or erlang:K). The map serves each job
through the phases of its size law (go doc herd/meanfield, §2); the board
still shows queue lengths. A state counts as balanced when its board mean is
at most 1.2·max(1, C)/(1−λ), C the sizes' squared coefficient of variation,
and a herd is told from a balanced state only from T(1−λ)² = 4·max(1, C)·(1−λ)
up, where the footing search starts at the lowest (meanfield.EdgeFootingFor).
The edge moves out about in proportion to C. det and pareto:A are not
phase-type and have no map (exit 2).

Near λ = 1 (--method). A map's cost grows like (1−λ)⁻³, so --method auto
(the default) answers loads above 0.99 by the heavy-traffic expansion
x(λ) ≈ x*(k) + c₁(1−λ) + c₂(1−λ)² (compare.EdgeExpansion): x*(k) from the
heavy-traffic limit map (go doc herd/meanfield, §6), c₁ and c₂ fitted to the
exact edges at λ = 0.9 and 0.95, the exact edge at 0.97 held out to check
it. It is an approximation, labelled so in the method column and the notes,
with its error estimate in edge_error (the larger of the held-out miss and
the last term's size |c₂|(1−λ)², with x*'s error in quadrature): against the
exact edges at λ = 0.99 for k = 3…10 it missed by 1.3·10⁻⁴ to 7·10⁻³, each
within its estimate. For phase-type sizes of squared coefficient of
variation C the limit map's Brownian step has variance C, so its edge is
exactly C·x*(k) (go doc herd/meanfield Limit, "Other job sizes"); the exact
edges at λ = 0.9, 0.95 and 0.97 are then those of the sizes, and cost what
the sizes cost. Loads above 0.97.
--method exact runs the refresh map's search at any load it can reach (T up
to 10⁶), after an estimate of its cost; --method expansion asks for the
expansion at every load.
`,

	"law": `What it computes. Checks the law of thumb T_edge(1−λ)² ≈ 0.9(k−2), with
x = T_edge(1−λ)² (herd edge's edge_scaled, computed on the same worker pool):

 1. For each load, the line x = a(k − b) fitted to the edges over the given
    k (ordinary least squares on x = c₀ + c₁k, a = c₁, b = −c₀/c₁, the
    standard error of b by the delta method; Draper & Smith, Applied
    Regression Analysis, 3rd ed., 1998, §9.2), with unit weights and
    standard errors from the residuals: each edge's precision is far below
    the scatter about the line. misfit, the rms of residual/precision, says
    by how much the line misses at the edges' own precision.
 2. For each k, the heavy-traffic limit x*(k) = lim_{λ→1} x(λ), extrapolated
    in h = 1 − λ from --ladder (Richardson; as polynomial extrapolation,
    Stoer & Bulirsch, Introduction to Numerical Analysis, 3rd ed., 2002,
    §3.4–3.5). Every order appears as an extrapolation row; the limit is the
    highest (--order), its error x_se the larger of the last two
    corrections, combined with the edges' precision. A warning says when the
    corrections grow instead of shrinking.
 3. The same line fitted to x*(k), weighted by 1/x_se², standard errors
    scaled by the Birge ratio max(1, √(χ²/(n−2))) (R. T. Birge, Phys. Rev.
    40, 1932).
 4. A verdict per k: the widest run of consecutive loads at which the edge
    is within --band of 0.9(k−2), and whether the limit is: yes (its whole
    error bar inside), no (outside) or undecided.
 5. x*(k) computed directly as the edge of the heavy-traffic limit map
    (meanfield/limit.go, go doc herd/meanfield §6; rows limit_map and
    fit_limit_map): scaled queues q = (1−λ)Q, time s = (1−λ)²t; one period
    is an instantaneous fill followed by reflected Brownian motion with
    drift −1 and variance 1 (J. M. Harrison, Brownian Motion and Stochastic
    Flow Systems, Wiley 1985, §1.8). Bisection to 10⁻⁴ relative on grids of
    step --limit-step h and h/2, extrapolated to h = 0; a warning asks for a
    smaller step where (k − 1)h is not well below √x.
 6. With --sizes LIST (default exp; each item exp, h2:C or erlang:K, as
    herd edge --sizes takes them), 1–5 for each job-size law, and the
    variability law x ≈ C·a(k − b), that is T_edge ≈ C·0.9(k−2)/(1−λ)², C
    the sizes' squared coefficient of variation (1 for exp, C for h2:C, 1/K
    for erlang:K). In the limit map only the Brownian step sees the sizes,
    with variance C, so the heavy-traffic edge is exactly x*(k, C) = C·x*(k)
    (go doc herd/meanfield Limit, "Other job sizes"). Every row then names
    its sizes and scv = C; law is C·0.9(k−2), ratio x/law, and the verdicts
    judge x against it within --band; the fits are of x/C, so a and b compare
    across sizes; the limit map runs once per k and its limit_map rows are
    C·x*(k), scaled (a note says so). fit_sizes rows fit x/C = a(k − b) per
    load over the edges of every sizes at once: one line for all C. The
    notes say, per load, which points lie within --band of that line and,
    per sizes, at which (k, λ) the edge lies within --band of C·0.9(k−2) and
    where it fails. As measured: at λ = 0.9 the exact edges of h2:C sizes,
    C = 4, 10 and 30, k = 3, 5 and 10, lie within 2.5% of C·x*(k) (x/C is
    0.94–0.98 of the exp edge, which lies 3–4% above x*(k) at that load);
    Erlang sizes (C < 1) approach the limit more slowly: erlang:2 at k = 3
    has x/C = 1.059, 0.978 and 0.961 at λ = 0.9, 0.95 and 0.97, against
    x*(3) = 0.952. Edges of heavy-tailed sizes cost far more maps than exp
    ones (many times more for h2:10 at λ = 0.9): start with few k and loads.

The edge is not a smooth function of λ: it sits at the end of a cut window,
so x jitters about a smooth trend by an amount that shrinks like (1−λ)²,
and polynomial extrapolation amplifies the jitter. The default ladder
(0.8, 0.9, 0.95) puts its weights on the loads nearest 1; --full-ladder
adds the loads 0.975 and 0.99, whose edges are much dearer, and the limit
map needs no extrapolation in λ at all.

Rows: one table, the row column naming the kind: edge (dispatchers, load,
x, x_se = tolerance·x, law, ratio = x/law), fit (per load) and fit_limit
(a, a_se, b, b_se, corr_ab, max_residual at max_residual_k, rms_residual,
misfit, points), extrapolation (dispatchers, order, x, and in load the
lowest load that order uses), verdict (dispatchers, the limit as x ± x_se at
order, law, ratio, law_from–law_to, limit_in_band), limit_map (x* as
x ± x_se, law, ratio, limit_in_band) and fit_limit_map (as fit_limit);
with --sizes also fit_sizes (per load, as fit, over every sizes).
CSV columns: row, dispatchers, load, order, x, x_se, law, ratio, a, a_se, b,
b_se, corr_ab, max_residual, max_residual_k, rms_residual, misfit, points,
law_from, law_to, limit_in_band (with --sizes, the columns sizes and scv
follow row; fit_sizes rows leave them empty). Text output ends with the
fitted lines and the verdicts in words.
`,

	"plan": `What it computes. Is my fleet in the herd? Takes a fleet as its
operator knows it (backends, proxy or router replicas each balancing on its
own view, the interval at which that view is refreshed, the mean service
time, the utilisation or the request rate, the request-size law) and
converts it into herd's units: T = refresh/service, λ = rate × service /
servers. Then, in order:

  1. The model (N → ∞). For least loaded with tallies, the refresh map (go
     doc herd/meanfield) from a quiet start (an empty fleet) and after a
     surge (half the backends holding 0.1·T of work, the herd's basin):
     balanced, bistable (balanced now, trapped after a surge) or herd.
     Partitioned dispatchers and a shared tally are the map with k = 1.
     Least loaded and sqd:D without a tally are the classic periodic-update
     models (exp sizes), random is M/M/1 (M/G/1 for other sizes). Policies
     with no model here (p2c or sqd:D with a tally, a scaled tally) are
     answered by the simulator alone, and the rows say so.
  2. The edge, as herd edge computes it at the converted (k, λ, sizes), and
     the margin T/T_edge. Where the exact search would take more than a
     minute by its price (heavy tails at high loads or many dispatchers,
     λ > 0.99) the edge comes from the heavy-traffic limit map instead,
     labelled an approximation with its error as λ → 1.
  3. The changes: the longest shorter refresh period that is balanced from
     both starts, a refresh 10% past the edge (bistable), the most
     dispatchers that are balanced, a shared tally, a tally scaled by k,
     partitioned dispatchers, power of two. Each is answered by the model
     where one covers it.
  4. The simulator at the fleet's own N: --runs runs of every row (the fleet
     from both starts, each change from a quiet start), --refreshes refresh
     periods each, with the mean and 99th percentile of the response time
     and the runs the tipping detector calls tipped; and herd bracket's
     bracket of the edge at N with the same run length (least loaded with
     own tallies; --no-bracket skips it).

The title gives the verdict (the model's, or the simulator's where no model
tells states apart); the rows are the fleet from both starts, then the
changes ranked by predicted mean response (the model's where it has one).
Every time is in milliseconds; the notes give the edge as a refresh period
and the bracket at N in the fleet's units.

Columns (CSV order): option, change, start, refresh_ms, dispatchers,
model_state, model_response_ms, sim_response_ms, sim_response_ci_ms (95%
Student-t half-width, runs − 1 d.f.), sim_p99_ms, sim_p99_ci_ms (the same
plus the 0.4% binning of each run's percentile), sim_tipped, source (model
and simulator, or simulator only). Meta: the fleet, verdict,
verdict_source, edge_ms, edge_scaled, edge_method (exact or limit), margin,
edge_n_lower_ms and edge_n_upper_ms (the bracket at N) and edge_n_half_ms
(where half the bracket's runs tip, fitted to all its points: herd help
bracket, T_½; absent where the points cannot place it).

Sizes from a file (--sizes-file): the file's mean and squared coefficient
of variation C give h2:C (C > 1.05), exp or erlang:K (K = round(1/C)); the
notes show the fit and its quantiles beside the samples', and a warning
says when the samples' 99.9th percentile exceeds the fit's by more than
20% (the answer is then optimistic about the long requests).
`,
	"point": `What it computes. Iterates the refresh map (go doc herd/meanfield) from a
start board to its attractor, a fixed point, a periodic orbit or an
aperiodic herd, and reports it; lists give one row per combination.

Columns (CSV order): dispatchers, load, refresh, start, attractor,
board_mean, queue_mean, response_mean (mean time in system, by Little's
law), spectral_radius, cut_phase, iterations, truncation, balanced,
residual, board_mean_se, response_se, averaged, drift. attractor is fixed,
period-P (means averaged over the orbit), aperiodic (a herd that stays in
the herd regime without settling, classified as herd hysteresis does: its
means average the last averaged maps, with batch-means standard errors
board_mean_se and response_se and the board mean's drift per map) or
unconverged (nothing established within --max-iter: exit 1, and every
column describes the last map). Below T(1−λ)² = 4·max(1, C)·(1−λ) the board
mean cannot tell a herd from a balanced state, and a balanced = true there
is noted as not conclusive.

Long points (--checkpoint FILE). A herd of heavy-tailed sizes can need
thousands of slow maps. With --checkpoint, every point's finished row or run state
(its last boards, observables and herd counters) is kept in FILE, written
atomically at the start, as points finish, every --checkpoint-every and on
Ctrl-C or SIGTERM; the same command with the same FILE continues where it
stopped and prints the bytes an uninterrupted run prints, whatever
--workers. A FILE made for other arguments or another version is refused.
The heartbeat (--progress) gives a point in the herd regime the most time
its aperiodic verdict can take at the recent pace of its maps.
`,

	"model": `What it computes. The classic mean-field models (go doc herd/meanfield,
§3) at one point per combination of the lists, to draw a published panel
from the model and overlay the simulator: random (M/M/1), rr (E_N/M/1 at
--servers N; D/M/1 as N → ∞), sqd:D and sq2 (the supermarket model on a
live board; Mitzenmacher's periodic-update SQ(D) on a stale one, probes
sampled with replacement as in the literature) and ll (periodic-update
least loaded; 1 on a live board, where N → ∞ always finds an idle server).

Columns (CSV order): policy, load, refresh, servers, response_mean,
queue_mean, period, converged, response_se, iterations. period is 1 for a
fixed point, P for a cycle, 0 for an irregular orbit (least loaded beyond
T ≈ 5): the row is then a long-run average with its standard error,
converged is false, and a warning says so.
`,

	"hysteresis": `What it computes. The trap door: for each refresh period T and start state,
the refresh map's attractor (the balanced branch from an empty board, the
herd from a half-loaded start) and, with --servers N, the simulator's mean
time in system ± standard error. The model's bistable range, where both
coexist, is printed under the table (--bistable).

Columns (CSV order): dispatchers, load, refresh, start, model_attractor,
model_herd, model_board_mean, model_response, servers, sim_response_mean,
sim_response_se, sim_board_mean, model_response_se, model_truncation,
model_maps. model_attractor is fixed, period-P, aperiodic (a herd that
stays in the herd regime without settling; its means are window averages
with model_response_se their batch-means standard error) or unconverged.
Shared tallies and partitions are, as N → ∞, one dispatcher with its own
tally: the model then uses the k = 1 map; the scaled tally has no model
(simulator only). single:B starts the model from an empty board.
`,

	"validate": `What it computes. Every check herd can compute (closed forms, the refresh
map, the simulator) against the published figures, one row per check; the
figures, their sources, readings and disputes are in compare/validation.md
(herd validate --table prints them). --quick runs the fast checks at
CI-sized run lengths (go test ./... and .ci/run run it). The full run
reproduces every row at the run lengths it prints; it is the opt-in job
.ci/validate-full, to run before a release and after any change to sim/,
meanfield/ or compare/: it exits non-zero on any fail.

Columns (CSV order): check, source, published, closed_form_or_model,
simulated, simulated_se, z, verdict, note, runs.

Verdicts: pass; fail (exit 1); disputed: herd misses the published figure,
compare/validation.md records independent evidence that disputes it (a
published re-run; where none exists, the refresh map and a second seed
stream of the simulator), and herd agrees with that evidence; a value that
matches neither is fail. note says why. A closed form passes when it rounds
to the published digits; a simulated mean over n runs passes when it lies
within t(0.9995, n − 1) standard errors (Student-t: a false alarm in 0.1%
of checks) of the closed form or model (z), or of the interval the
published figure states (its last digit ± half a unit; ≈ read as ±5%).
Where a finite system is compared with an N → ∞ model, its measured
finite-N bias is taken off the simulated mean with its sign, and the
standard errors behind the comparison are combined, each once
(Welch–Satterthwaite degrees of freedom).
`,

	"bracket": `What it computes. Brackets the edge of the balanced state with the
simulator at each N (go doc herd/compare): runs of least loaded with own
tallies from a balanced start at refresh periods around the model's edge,
each stopped as soon as it tips. The bracket is [the last T(1−λ)² where all
runs tipped, the first above it where at most one did], refined by
bisecting its widest gap until none exceeds --resolution. A run tips when
the board's mean stays above max(3/(1−λ), 0.1·T) for 5 refreshes in a row
(compare/tipping.go).

Sequential stopping (compare/bracket.go). Of a point the bracket asks "did
all R runs tip?" and "did at most one?". Each run's outcome is fixed by its
seed, so a question is settled as soon as the outcomes known so far decide
it whatever the rest do, taking the replications in order so that what a
point reports does not depend on timing; runs still going when their point
is settled are paused and resumed if a later question needs them. A settled
answer is the one all R full-length runs give, so the error rate is the
rule's own: a point whose runs tip with probability p reads "all" with
probability p^R and "at most one" with probability (1−p)^R + R·p·(1−p)^(R−1);
with R = 6, a point where half the runs tip passes for a lower end 1.6% of
the time and for an upper end 10.9%.
Neighbouring T do not share random numbers (a run's seed comes from its T
and replication).

Columns (CSV order): servers, dispatchers, load, runs, refreshes,
lower_scaled, upper_scaled, model_scaled, lower_scaled_300,
upper_scaled_300 (the bracket at the --cut run length), cut, points,
resolution, seed, half_scaled, half_lower, half_upper. --points writes the
per-T tipping table (tipped fraction and median tipping refresh, for both
run lengths; runs and runs_cut count the runs that settled each point).

T_½ (half_scaled). The bracket's ends are single points, so with 6 runs a
point they move with each point's luck (above). half_scaled pools every
point: the T(1−λ)² at which a run tips within --refreshes with
probability ½, the quantity herd edge --servers predicts, from a logistic
regression of the tipped runs on T(1−λ)² (Firth's penalised maximum
likelihood, finite where the runs separate), with its 95% profile-
likelihood interval [half_lower, half_upper] (go doc herd/compare
TipHalf; its coverage is tested on synthetic brackets: 0.947–0.971). Runs
paused by sequential stopping do not count; which they are depends only on
their point's earlier runs, so the fit is as valid as with fixed runs. An
interval end the points do not bound is empty; herd scaling --from tables written
before these columns leave them empty. herd edge --servers fits the same
logistic model to its own runs (its half_scaled, beside edge_scaled, a
constant-hazard fit that also reads the tipping times), so a prediction
and a bracket can be set side by side by one estimator.

--half-width W. Where the tipping chance falls slowly with T (a wide
transition at small N), the bracket's points place T_½ loosely. With
--half-width the bracket goes on: while half_scaled's interval is wider
than W it runs every run of one more point, in turn where the fit puts the
chance of a tip at 0.8, at 0.2 and at ½ (a point of the bracket near there
whose runs sequential stopping left unrun, else a new one), at most 40 new
points a bracket, and warns when W is not reached. The new points count
for half_scaled alone (the bracket stays the search's); --points lists
them all. They follow from the runs' outcomes alone, so they resume from
--out like the bracket.

The run log (--out). Every finished run is appended as it finishes; a rerun
with the same flags skips what it holds, so an interrupted bracket resumes
and prints the same output. The log is a journal, not a result: its order
depends on timing, while stdout, --points and --plot do not, whatever
--workers. Its first line is "# herd bracket run log 1"; any other file is
refused, and so is a log line out of range. The model's edge is searched
with --workers and stopped by Ctrl-C within one map; give --model-edge when
bracketing heavy-tailed sizes several times.

Progress (--progress). A bracket bisects, so its runs are not known in
advance: off a terminal its heartbeat, every 30 s, gives the runs done and
those queued, with an estimate for the queued at the pace so far that the
runs the search queues after them will extend, and which bracket of
--servers is at work; herd scaling's brackets report the same.
`,

	"scaling": `What it computes. Fits edge(N) = edge(∞) + a·N^(−β) to the brackets
(weighted least squares, each bracket at its midpoint with the standard
deviation of a uniform law on it; β on a grid over [0.01, 3]) and prints
edge(∞) with its range against the model's edge, the fit's χ², its degrees
of freedom (brackets − 3) and P(χ² ≥ that). It needs at least 4 complete
brackets at distinct N (exit 2 otherwise, before running when --servers has
fewer than 4 values) and warns when β sits on an end of its grid. The fit is
in the meta of text and JSON and in the CSV's fit_* columns (fit_scaled is
the fitted curve at that row's N; the others repeat the fit on every row).
Takes the flags of herd bracket, or --from FILE to fit what herd bracket
--format csv (or json) wrote; FILE may be - for standard input.

--fit half fits each bracket's T_½ instead (half_scaled: where half the
runs tip, fitted to all the bracket's points, herd help bracket), with the
standard deviation its 95% interval implies, (half_upper − half_lower)/3.92;
it needs 4 bounded T_½ at distinct N. A bracket's two ends are single
points that move with each point's luck; T_½ states its error, so the χ²
tests the law rather than the ends. Example: herd's h2:10 brackets at
k = 5, λ = 0.9, N = 25 … 1,600 give edge(∞) = 27.73 (27.45–27.94, χ² = 10.8
on 1 d.f., P = 0.001) against the map's 28.126; their T_½ give 28.06
(27.95–28.16, χ² = 5.86, P = 0.016), a range that holds the map's edge.
`,

	"balls": `What it computes. Throws m balls into n bins, one at a time, the discrete
twin of dispatch; the probing rules are the simulator's own code, reading
bin loads. m = n is the classic setting; --balls 16n is the heavily loaded
one, where the gap max load − m/n is the measure. greedy:D probes D uniform
bins with replacement (Azar, Broder, Karlin & Upfal); left:D one bin in each
of D groups, ties to the left (Vöcking); firstdiff:D probes uniform bins
until one's load differs from the first probe's and takes the smaller of
those two (Augustine, Moses, Redlich & Upfal, "Balanced allocation:
patience is not a virtue", SODA 2016).

How long a firstdiff ball may probe is --firstdiff-rule: allowance (the
run earns D probes per ball and a ball probes again only while the
allowance covers it, so the mean is at most D; at D = 2 this is Greedy[2])
or cap:C (each ball probes up to C bins whatever the others did, and goes to
the first probe when all C show its load; C is a whole number or d, 2d, d^2,
4d^2, n, 2n; under this rule D enters only through C, cap:2 is Greedy[2] and
cap:1 uniform placement).

Columns (CSV order): bins, balls, policy, rule (the firstdiff rule, - for
the others), probe_cap (the most probes one ball may make), batch, runs,
max_load_mean, max_load_se, gap_mean (max − m/n), gap_se, probes_mean
(probes per ball, averaged over runs), probes_se, probes_max, max_load_dist
(the maximum loads seen with their run counts, for example 3:29 4:3).
`,

	"sim": `What it computes. Simulates the finite system of go doc herd/sim and
prints one row per combination of its list-valued flags: N FCFS servers,
k dispatchers reading a board refreshed every T, each correcting it with its
own tally of sends.

Rules: ll takes a uniform server among those with the smallest value; with
a tally it is a water level (each pass over a level visits its servers in
random order). sqd:D probes D distinct servers (ties uniform). left:D
probes one server in each of D contiguous groups, ties to the leftmost.
firstdiff:D probes until a value differs from the first probe's and sends to
the smaller; each dispatcher earns D probes per job, so the mean is at most
D (sim/choose.go). oracle takes the server with the least remaining work,
live.

Columns (CSV order): servers, dispatchers, load, refresh, policy, tally,
partitioned, sizes, start, runs, response_mean (mean time in system of jobs
arriving after the warm-up, averaged over runs), response_se (its standard
error across runs), board_mean (the mean board value at refreshes; on a live
board the mean queue sampled every 10 service times), jobs (measured over
all runs), board_se, probes_mean (servers probed per job by sqd, left and
firstdiff), horizon, warmup, tipped (runs that the tipping detector calls
tipped: the board mean above max(3/(1−λ), 0.1·T) for 5 records in a row;
with long-tailed sizes at short periods random dispatching's own queue
reaches a third of that, the detector has lost its margin, and a warning
says so in place of the one about runs that tipped).

The default run length is 1,000 refresh periods where the policy reads a
stale board: the window over which herd bracket judges survival, since past
the edge a finite fleet's balanced state is only metastable. A row whose
runs measured no job prints empty cells and a warning, never 0 ± 0.

Warnings (on stderr in every format, and in the text and JSON output): runs
that tip during measurement (the mean then mixes balanced and herded time
and grows with the run length); some runs of a row tipped and others not;
runs that drift during measurement (a batch-means trend test on each run's
board records, at 1% per row with Bonferroni over the runs, for runs whose
batches span at least 5(1+λ)/(1−λ)² service times: see compare/validation.md,
"Run length"); a run mean further from the others than a normal spread
allows (Grubbs' test at 1%: the s.e. then understates the uncertainty);
Pareto sizes' infinite moments; and jobs rarer than one per run that carry a
load above a tenth of the slack 1 − λ (sim.UnseenWork): runs that all
miss them agree with each other, so their standard error does not show the
bias.
`,

	"figures": `What it computes. Draws every published chart as PNG, SVG and PDF (6 × 4
inches each; --format), with the CSV of exactly the plotted numbers and
DIR/index.md, which lists each figure with the command that reproduces it
alone (herd figures DIR --only N). Every plotted point with a standard error
has a 95% bar: a simulator point over its runs, t(0.975, runs − 1) standard
errors; a model point that is the long-run average of an irregular orbit over
its batch means, t(0.975, batches − 1) batch-means standard errors. The CSV
gives the bar, the standard error and the runs (or batches). --quick uses
CI-sized runs (go test ./... runs it); the default uses the published run
lengths (those herd validate lists). The figures share one pool of
--workers (a run two figures share is made once) and each is written as
soon as it is done; the same flags and seed give the same bytes, PDFs
included.

Progress. On a terminal, one line, rewritten: the figures done, the time
elapsed and an estimate of the time left, and per figure at work its stage
and its share done by cost. In a log the same is printed every 30 s as a
head line and one line per figure at work. The estimate is the cost left over
the rate so far; a stage not yet started is not in it, so it can rise.

Ctrl-C and resuming. Every simulator and bracket run is appended, as it
finishes, to DIR/.figures-journal (first line "# herd figures journal 1",
then the settings the numbers depend on, "# quick=… seed=…", then one
tab-separated line per run; a torn last line is ignored). After Ctrl-C herd
names the figures it wrote, those it did not make, and how many finished
runs the journal keeps; running the same command again reuses them and
writes the same bytes an uninterrupted run would, whatever --workers
(--only may differ between the two). A journal made with another --quick or
--seed is refused (exit 2) and left alone. The journal is deleted once every
chosen figure is written, unless an earlier run on it set out to make
figures this one did not.
`,

	"merge": `What it computes. herd sim, herd point and herd model (with lists) and herd
bracket --grid do a list of independent runs, and each can be split into
shards with --shards N: run i belongs to shard i mod N, and its seed depends
only on --seed and the run's parameters and replication, so a sharded sweep
gives the same numbers as the unsharded one. A shard prints nothing on
stdout; it writes DIR/part-I-of-N.json (atomically), recording the command,
its arguments and each run's raw result. --shard defaults to
$SLURM_ARRAY_TASK_ID, else $JOB_COMPLETION_INDEX (Kubernetes indexed jobs);
--slurm-script prints an sbatch job array (--array=0-(N-1),
--cpus-per-task=1, logs in DIR/logs) running the same command with
--shards N --out DIR --workers 1.

herd merge DIR checks that DIR holds one complete part for every shard of
one sweep and prints exactly what the unsharded command prints, with the
sweep's own --format, --plot and --points (merge's flags override them); for
herd bracket the brackets are computed at merge time from the runs. If
shards are missing or incomplete, merge exits 1 and lists them in the form
sbatch --array=LIST takes, so only those are resubmitted. A corrupt part is
an error, never skipped; every decoded value is range-checked. A shard
stopped by Ctrl-C or SIGTERM writes a part marked partial and exits 1; run
again, it does only the runs it lacks. Example:

  herd sim --policy ll,rr --tally own --refresh 100,300,1000 --runs 32 \
      --format csv --shards 64 --out sweep --slurm-script > sweep.sh
  sbatch sweep.sh
  herd merge sweep > table.csv

Without Slurm, start the shards any way that shares DIR (GNU parallel,
--shard {} over 0…63), then merge.
`,
}

// helpTopics are herd help's topics that are not commands.
var helpTopics = map[string]string{
	"output": `Output (herd help output)

Every table command writes --format text (for people), csv or json (for
programs), from one table model. Text rounds results to a few significant
digits per column but writes the columns that echo an input (load, refresh)
as given, and starts with # lines saying how it was made (version, seed,
every parameter). Both machine formats carry everything the text says:

CSV has one header row, then one row per result: the command's own columns
first (herd help CMD lists them), then the same values on every row:
meta_title, meta_command (the command line, with every flag set except those
that only choose where output goes), meta_version, one meta_KEY per
parameter of the text's # line, meta_notes and meta_warnings (joined with
" | ") and meta_partial (true for a run stopped by Ctrl-C). Missing values
are empty fields; floats read back bit for bit (in pandas with
float_precision="round_trip").

JSON is {"meta": {...}, "columns": [...], "rows": [{...}, ...]}: meta holds
title, command, partial, the parameters as typed values, notes and warnings;
columns the column order; rows one object per row keyed by column name, with
null for a missing value. Where a command reads a table herd wrote
(herd scaling --from FILE), FILE may be its CSV or its JSON, or - for
standard input.

--plot FILE draws the command's chart as .png, .svg, .pdf or .eps (6 × 4
inches): model curves as lines, simulator points with 95% error bars.

Progress goes to stderr when it is a terminal (items done, time elapsed and
left, weighted by each item's expected cost), else as a heartbeat every 30 s
where --progress offers it. Ctrl-C stops new work, writes the finished rows
marked partial and exits 1; long model computations stop within one map.
Exit status: 0 success, 1 a runtime or numerical failure (or an interrupted
run), 2 bad usage (the message names the flag and its allowed range).
`,

	"limits": `Limits (herd help limits)

Sizes are checked before anything is allocated; a request beyond a limit
exits 2 naming the flag, the limit and what it would need. The simulator
keeps about 64 bytes per server (4 more per server and dispatcher with
per-dispatcher tallies) and up to 64 bytes per job laid down at the start.

  sim servers N                              10⁷
  sim dispatchers k                          10⁵
  sim memory per run (estimated)             2 GiB (--tally scaled keeps k² water levels)
  D in sqd:D, left:D, firstdiff:D, greedy:D  1024 (a job costs D probes)
  jobs laid down by --start                  2·10⁷ in all
  arrivals per run, λ·N·horizon              10¹²
  board refreshes per run, horizon/T         10⁹ (each copies the board)
  runs per command (rows × --runs), --shards 10⁶ (each is planned before any starts)
  refresh map k, T, λ                        [1, 256], [0.01, 10⁶], [10⁻⁶, 1)
  herd model's periodic-update maps, T       [0.01, 10⁴]
  refresh map start boards                   queues ≤ 10⁴
  refresh map queue rows                     2²² (herd edge --confirm's check: 2²⁴)
  edge search                                T = 0.9(k−2)/(1−λ)² ≤ 10⁶ where it starts
                                             (0.9 in place of 0.9(k−2) for k ≤ 2)
  balls: bins, balls per run                 2²⁷, 2³¹−1

Below T = 0.01 the refresh map does not settle and rounding shows; below
λ = 10⁻⁶ its truncation (10⁻¹²) swamps the queue.
`,
}

// helpTopicNames returns the topics' names, sorted.
func helpTopicNames() []string { return slices.Sorted(maps.Keys(helpTopics)) }
