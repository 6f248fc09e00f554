#!/usr/bin/env bash
# The edge table of issue 15, with before/after timings. Not run by CI: it
# takes about an hour of CPU (most of it in k = 48, 64 at λ = 0.95 and the
# λ = 0.99 rows); run it on an otherwise idle machine with many cores:
#
#   .ci/edge-table.sh [OUTDIR]        (default OUTDIR: ./edge-table-out)
#
# It writes into OUTDIR:
#   bench.txt    one edge at (k, λ) = (5, 0.9), (16, 0.9), (5, 0.95), (5, 0.99),
#                (64, 0.9), and the default table, old (main at a82c7e6) and
#                new side by side, each pinned to 2 cores (taskset -c 0,1),
#                wall and user seconds; the old binary gets 600 s at most.
#   table.csv    k = 2,3,4,5,6,8,10,12,16,24,32,48,64 at λ = 0.8, 0.9, 0.95 and
#                k ≤ 10 at λ = 0.99, with --confirm (plain iteration from the
#                low boards at T(1 ± 1e-4)); table.log has each edge's wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-edge-table-out}
mkdir -p "$out"
old=$(mktemp -d)
trap 'rm -rf "$old"' EXIT
git archive a82c7e6 | tar -x -C "$old"
(cd "$old" && go build -o herd-old ./cmd/herd)
go build -o "$out/herd-new" ./cmd/herd

pin=""
if command -v taskset >/dev/null; then pin="taskset -c 0,1"; fi
timeit() { # label, then the command
	local label=$1
	shift
	local t0 t1
	t0=$(date +%s.%N)
	if /usr/bin/time -f "%U" -o "$out/.user" timeout 600 $pin "$@" >"$out/.stdout" 2>/dev/null; then st=ok; else st="failed/timeout"; fi
	t1=$(date +%s.%N)
	printf '%-34s wall %7.1f s  user %7.1f s  %s\n' "$label" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" "$(tail -1 "$out/.user")" "$st" | tee -a "$out/bench.txt"
}
: >"$out/bench.txt"
for kl in "5 0.9" "16 0.9" "5 0.95" "5 0.99" "64 0.9"; do
	set -- $kl
	timeit "old edge k=$1 λ=$2" "$old/herd-old" edge --dispatchers "$1" --load "$2" --workers 1
	timeit "new edge k=$1 λ=$2" "$out/herd-new" edge --dispatchers "$1" --load "$2" --workers 1 --progress never
done
timeit "old default table (2 workers)" "$old/herd-old" edge --workers 2
timeit "new default table (2 workers)" "$out/herd-new" edge --workers 2 --progress never

# The full table, confirmed.
"$out/herd-new" edge --dispatchers 2,3,4,5,6,8,10,12,16,24,32,48,64 --load 0.8,0.9,0.95 \
	--confirm --progress always --format csv >"$out/table-main.csv" 2>"$out/table.log"
"$out/herd-new" edge --dispatchers 2,3,4,5,6,8,10 --load 0.99 \
	--confirm --progress always --format csv >"$out/table-099.csv" 2>>"$out/table.log"
{ cat "$out/table-main.csv"; tail -n +2 "$out/table-099.csv"; } >"$out/table.csv"
rm -f "$out/.user" "$out/.stdout"
echo "wrote $out/bench.txt, $out/table.csv, $out/table.log"
