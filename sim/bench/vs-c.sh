#!/bin/sh
# vs-c.sh: the simulator against the C floor, whole process against whole
# process, on the C floor's two workloads (10 million
# jobs, N = 100, λ = 0.9): live best of two (sq2) and least loaded on a
# board refreshed every T = 10 (ll). It builds herd and the C program
# (lb.c, kept outside this repository and named by LB_C, never copied
# here), alternates the two
# PAIRS times per workload, and prints each pair's ratio herd/C and the
# median ratio, of CPU time (user + system; /usr/bin/time) and of wall
# time. On a shared machine the wall time mostly measures the other
# users: the CPU-time ratio is the one to quote, and only ratios of
# alternating runs mean anything; the medians resist the odd slow run.
#
# Both sides do the same work, the finite system of herd/sim's package doc,
# on one core:
#   - arrivals: Poisson at rate λN = 90 from an empty system at time 0,
#     no warm-up; exp(1) sizes; each server FCFS by the Lindley recursion
#     dep = max(arr, last dep) + S, its queue length read from its pending
#     departures. C stops after exactly 10,000,000 arrivals (JOBS), herd
#     at the horizon 111,111 (JOBS/90: λN·horizon = 9,999,990 expected
#     arrivals, Poisson: ±3,162, 0.03%); the script prints both counts.
#   - sq2: two distinct servers drawn uniformly, live queue lengths, the
#     shorter wins (ties: C tosses a coin, herd takes the first draw, the
#     same law since the draws are exchangeable). herd --policy sq2
#     (distinct by default) against lb sq2.
#   - ll: one board read at 0, T, 2T, ... (T = 10), each job to a uniform
#     server among the board's minima, no tally between refreshes.
#     herd --policy ll --refresh 10 (tally none, one dispatcher) against
#     lb jsqT.
#   Not the same: the generators (herd: xoshiro256++ and a ziggurat for
#   the exponential; C: xoshiro256+ and −log U, a libm call per draw), and
#   herd's bookkeeping besides (board records and their statistics,
#   start-up, the table). Each side prints its mean time in system, shown
#   beside the counts as a check that both ran the same model (one run
#   each: they agree to about a percent, not exactly).
#
# usage: sim/bench/vs-c.sh [PAIRS]     (default 5; run from anywhere)
# env:   LB_C   path of lb.c (unset: nothing to compare with; skipped)
#        JOBS   arrivals per run (default 10000000, the README's; herd's
#               horizon is JOBS/90). /usr/bin/time counts CPU in steps of
#               10 ms, so a run under a second (10⁷ jobs took 0.14–0.41 s
#               on a fast core) reads ±3–7%: JOBS=100000000 reads ±1%
#        HERD   an already built herd binary to measure instead
#        NICE   prefix for the measured commands (default: nice -n 10)
set -eu
pairs=${1:-5}
jobs=${JOBS:-10000000}
case $jobs in '' | *[!0-9]*) echo "vs-c.sh: JOBS = $jobs: want an integer ≥ 90" >&2; exit 2 ;; esac
[ "$jobs" -ge 90 ] || { echo "vs-c.sh: JOBS = $jobs: want an integer ≥ 90" >&2; exit 2; }
horizon=$((jobs / 90))
case $pairs in '' | *[!0-9]*) echo "vs-c.sh: PAIRS = $pairs: want an integer ≥ 1" >&2; exit 2 ;; esac
[ "$pairs" -ge 1 ] || { echo "vs-c.sh: PAIRS = $pairs: want an integer ≥ 1" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
src=${LB_C:-}
if [ -z "$src" ]; then
	echo "vs-c.sh: LB_C is not set: no C floor (lb.c) to compare with; skipped"
	exit 0
fi
if [ ! -f "$src" ]; then
	echo "vs-c.sh: $src not found: no C floor to compare with; skipped"
	exit 0
fi
command -v cc >/dev/null 2>&1 || command -v gcc >/dev/null 2>&1 || {
	echo "vs-c.sh: no C compiler; skipped"
	exit 0
}
nice=${NICE-nice -n 10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
cc=$(command -v cc || command -v gcc)
"$cc" -O2 -o "$tmp/lb" "$src" -lm
herd=${HERD:-}
if [ -z "$herd" ]; then
	(cd "$root" && go build -o "$tmp/herd" ./cmd/herd)
	herd=$tmp/herd
fi

# secs CMD...: "CPU WALL" of one whole process, in seconds (CPU = WALL
# when /usr/bin/time is missing).
secs() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f "%U %S %e" -o "$tmp/time" $nice "$@" >"$tmp/out" 2>"$tmp/err"
		awk '{printf "%.3f %.3f", $1 + $2, $3}' "$tmp/time"
	else
		s=$(date +%s.%N)
		$nice "$@" >"$tmp/out" 2>"$tmp/err"
		e=$(date +%s.%N)
		echo "$s $e" | awk '{printf "%.3f %.3f", $2 - $1, $2 - $1}'
	fi
}

# work NAME: the jobs and mean time in system of each side's last run
# (herd's from its CSV columns jobs and response_mean, C's from its
# jobs= and meanR= fields).
work() {
	hw=$(awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) col[$i] = i; next}
		/^[0-9]/ {print $col["jobs"], $col["response_mean"]; exit}' "$tmp/h.out")
	cw=$(tr ' ' '\n' <"$tmp/c.out" | awk -F= '$1 == "jobs" {j = $2} $1 == "meanR" {m = $2} END {print j, m}')
	echo "$hw $cw" | awk -v n="$1" '{
		printf "%s work: herd %d jobs (mean time in system %.4f), C %d jobs (%.4f)\n", n, $1, $2, $3, $4
	}'
}

# workload NAME C-ARGS -- HERD-ARGS
workload() {
	name=$1
	shift
	cargs=""
	while [ "$1" != "--" ]; do cargs="$cargs $1"; shift; done
	shift
	: >"$tmp/$name"
	i=1
	while [ "$i" -le "$pairs" ]; do
		# Alternate which goes first, so neither always gets a warm cache.
		if [ $((i % 2)) -eq 1 ]; then
			c=$(secs "$tmp/lb" $cargs)
			cp "$tmp/out" "$tmp/c.out"
			h=$(secs "$herd" "$@")
			cp "$tmp/out" "$tmp/h.out"
		else
			h=$(secs "$herd" "$@")
			cp "$tmp/out" "$tmp/h.out"
			c=$(secs "$tmp/lb" $cargs)
			cp "$tmp/out" "$tmp/c.out"
		fi
		[ "$i" -eq 1 ] && work "$name"
		echo "$h $c" | awk -v n="$name" -v i="$i" '{
			printf "%s pair %d: herd %.3f s CPU (%.3f s wall), C %.3f s CPU (%.3f s wall), ratio %.3f CPU, %.3f wall\n",
				n, i, $1, $2, $3, $4, $1 / $3, $2 / $4
		}'
		echo "$h $c" | awk '{print $1 / $3, $2 / $4}' >>"$tmp/$name"
		i=$((i + 1))
	done
	for col in 1 2; do
		kind=CPU
		[ "$col" -eq 2 ] && kind=wall
		awk -v c="$col" '{print $c}' "$tmp/$name" | sort -g | awk -v n="$name" -v k="$kind" '{a[NR] = $1} END {
			m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
			printf "%s: median ratio herd/C of %s time over %d pairs = %.3f (min %.3f, max %.3f)\n", n, k, NR, m, a[1], a[NR]
		}'
	done
}

common="--format csv --servers 100 --load 0.9 --horizon $horizon --warmup 0 --runs 1 --workers 1 --seed 1"
echo "work per run: C $jobs arrivals, herd horizon $horizon (λN·horizon = $((horizon * 90)) expected)"
workload sq2 sq2 100 0.9 "$jobs" 0 1 -- sim $common --policy sq2
workload ll jsqT 100 0.9 "$jobs" 10 1 -- sim $common --policy ll --refresh 10
