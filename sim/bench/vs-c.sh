#!/bin/sh
# vs-c.sh: the simulator against the C floor, whole process against whole
# process, on the two workloads of ../shared/bench/README.md (10 million
# jobs, N = 100, λ = 0.9): live best of two (sq2) and least loaded on a
# board refreshed every T = 10 (ll). It builds herd and the C program
# (read from the shared directory, never copied here), alternates the two
# PAIRS times per workload, and prints each pair's ratio herd/C and the
# median ratio, of CPU time (user + system; /usr/bin/time) and of wall
# time. On a shared machine the wall time mostly measures the other
# users: the CPU-time ratio is the one to quote, and only ratios of
# alternating runs mean anything; the medians resist the odd slow run.
#
# usage: sim/bench/vs-c.sh [PAIRS]     (default 5; run from anywhere)
# env:   LB_C   path of lb.c (default: <repo>/../shared/bench/lb.c)
#        HERD   an already built herd binary to measure instead
#        NICE   prefix for the measured commands (default: nice -n 10)
set -eu
pairs=${1:-5}
case $pairs in '' | *[!0-9]*) echo "vs-c.sh: PAIRS = $pairs: want an integer ≥ 1" >&2; exit 2 ;; esac
[ "$pairs" -ge 1 ] || { echo "vs-c.sh: PAIRS = $pairs: want an integer ≥ 1" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
src=${LB_C:-$root/../shared/bench/lb.c}
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
		/usr/bin/time -f "%U %S %e" -o "$tmp/time" $nice "$@" >/dev/null
		awk '{printf "%.3f %.3f", $1 + $2, $3}' "$tmp/time"
	else
		s=$(date +%s.%N)
		$nice "$@" >/dev/null
		e=$(date +%s.%N)
		echo "$s $e" | awk '{printf "%.3f %.3f", $2 - $1, $2 - $1}'
	fi
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
			h=$(secs "$herd" "$@")
		else
			h=$(secs "$herd" "$@")
			c=$(secs "$tmp/lb" $cargs)
		fi
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

common="--servers 100 --load 0.9 --horizon 111111 --warmup 0 --runs 1 --workers 1 --seed 1"
workload sq2 sq2 100 0.9 10000000 0 1 -- sim $common --policy sq2
workload ll jsqT 100 0.9 10000000 10 1 -- sim $common --policy ll --refresh 10
