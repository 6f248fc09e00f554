#!/usr/bin/env bash
# CI: a sharded herd sweep on a real one-node Slurm cluster (issue 7).
#
# Installs Debian's Slurm and MUNGE, starts munged (as the munge user),
# slurmctld and slurmd (as root, without systemd) with every file under a
# scratch directory (own socket, ports, state, logs: nothing in /etc is
# touched), submits a sharded `herd sim` as a job array written by
# --slurm-script, waits by polling squeue, and checks that `herd merge`
# prints the unsharded command's bytes (CSV, text, JSON and the SVG plot).
# Then one shard is made to fail: merge must exit 1 naming it, and the
# shard resubmitted alone (sbatch --array=LIST, the list merge printed)
# must complete the sweep. The daemons are stopped by their PIDs. Needs
# root; runs on a fresh Debian 12 machine.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
say() { echo "slurm-test: $*"; }
fail() { say "FAIL: $*"; exit 1; }

[ "$(id -u)" = 0 ] || fail "needs root (apt-get, slurmd)"

export DEBIAN_FRONTEND=noninteractive
dpkg --configure -a # finish any install a killed run left half-done (apt refuses to start otherwise)
apt-get update -qq
apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null
say "packages: $(dpkg-query -W -f '${Package} ${Version}, ' slurmctld slurmd slurm-client munge)"

T=$(mktemp -d)
chmod 755 "$T" # munged, running as munge, must reach its directory
PIDFILES=()
JOBS=()
cleanup() {
	rc=$?
	for j in "${JOBS[@]}"; do scancel "$j" 2>/dev/null || true; done
	# Stop the daemons by their PIDs, newest first, and wait for each.
	for ((k = ${#PIDFILES[@]} - 1; k >= 0; k--)); do
		f=${PIDFILES[k]}
		[ -s "$f" ] || continue
		pid=$(cat "$f")
		kill "$pid" 2>/dev/null || continue
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
	done
	if [ "$rc" != 0 ]; then
		for f in "$T"/log/*.log "$T"/munge/munged.log "$T"/sweep/logs/*.out; do
			[ -f "$f" ] && { echo "==> $f"; tail -n 30 "$f"; }
		done
	else
		rm -rf "$T"
	fi
	exit "$rc"
}
trap cleanup EXIT

go build -o "$T/herd" ./cmd/herd
H=$T/herd

# MUNGE: a fresh key and our own socket, as the munge user.
mkdir -p "$T/munge"
chown munge:munge "$T/munge"
chmod 755 "$T/munge"
SOCK=$T/munge/munge.socket.2
runuser -u munge -- mungekey --create --keyfile="$T/munge/munge.key"
runuser -u munge -- munged --socket="$SOCK" --key-file="$T/munge/munge.key" \
	--log-file="$T/munge/munged.log" --pid-file="$T/munge/munged.pid" --seed-file="$T/munge/munged.seed"
PIDFILES+=("$T/munge/munged.pid")
munge -n -S "$SOCK" | unmunge -S "$SOCK" >/dev/null || fail "munge credential round trip"

# Slurm: this host's real name, CPUs and memory (slurmd -C), one CPU per task.
NODE=$(slurmd -C | sed -n 's/^NodeName=\([^ ]*\).*/\1/p')
NODELINE=$(slurmd -C | head -n 1)
mkdir -p "$T/etc" "$T/state" "$T/spool" "$T/log"
export SLURM_CONF=$T/etc/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=herdci
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SOCK
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
PlugStackConfig=$T/etc/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$T/log/jobcomp.txt
MinJobAge=300
ReturnToService=2
$NODELINE NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=ci Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
: >"$T/etc/plugstack.conf"
slurmctld -c
PIDFILES+=("$T/slurmctld.pid")
slurmd -N "$NODE"
PIDFILES+=("$T/slurmd.pid")
for i in $(seq 60); do
	state=$(sinfo -h -n "$NODE" -o %t 2>/dev/null || true)
	[ "$state" = idle ] && break
	[ "$i" = 60 ] && fail "node $NODE not idle after 60 s (state '$state')"
	sleep 1
done
say "cluster up: $NODELINE ($(( $(date +%s) - t0 )) s so far)"

# wait_job JOBID: poll squeue until no element of the array is pending or
# running, then check the exit codes jobcomp/filetxt recorded.
wait_job() {
	local jid=$1 want=$2 n=$3
	for i in $(seq 300); do
		[ -z "$(squeue -h -j "$jid" -o %i 2>/dev/null || true)" ] && break
		[ "$i" = 300 ] && fail "job $jid still queued after 300 s"
		sleep 1
	done
	for i in $(seq 30); do # jobcomp is written as each element ends
		got=$(grep -c "ArrayJobId=$jid " "$T/log/jobcomp.txt" 2>/dev/null || true)
		[ "${got:-0}" -ge "$n" ] && break
		[ "$i" = 30 ] && fail "job $jid: $got of $n elements in jobcomp"
		sleep 1
	done
	codes=$(grep "ArrayJobId=$jid " "$T/log/jobcomp.txt" | sed -n 's/.* ExitCode=\([0-9:]*\).*/\1/p' | sort | uniq -c | xargs)
	say "job $jid: exit codes (count code): $codes"
	[ "$codes" = "$want" ] || fail "job $jid: exit codes '$codes', want '$want'"
}

ARGS=(sim --servers 20 --horizon 2000 --runs 4 --policy ll,sq2 --refresh 0,5,20 --seed 3 --format csv)
SHARDS=4
"$H" "${ARGS[@]}" --plot "$T/plain.svg" >"$T/plain.csv"
"$H" "${ARGS[@]}" --format text >"$T/plain.text"
"$H" "${ARGS[@]}" --format json >"$T/plain.json"
"$H" "${ARGS[@]}" --shards "$SHARDS" --out "$T/sweep" --slurm-script >"$T/sweep.sh"
grep -q -- "--array=0-$((SHARDS - 1))" "$T/sweep.sh" || fail "script lacks the array"
# The failure hook for the second round: an element whose index is
# $HERD_CI_FAIL_SHARD exits 3 before running herd.
sed -i 's/^set -eu$/&\nif [ "${HERD_CI_FAIL_SHARD:-}" = "$SLURM_ARRAY_TASK_ID" ]; then echo deliberate failure; exit 3; fi/' "$T/sweep.sh"

# Round 1: the whole array; merge prints the unsharded bytes.
jid=$(sbatch --parsable "$T/sweep.sh")
JOBS+=("$jid")
wait_job "$jid" "$SHARDS 0:0" "$SHARDS"
"$H" merge "$T/sweep" --plot "$T/merged.svg" >"$T/merged.csv"
cmp "$T/plain.csv" "$T/merged.csv" || fail "merged CSV differs from the unsharded run"
cmp "$T/plain.svg" "$T/merged.svg" || fail "merged plot differs"
"$H" merge "$T/sweep" --format text | cmp - "$T/plain.text" || fail "merged text differs"
"$H" merge "$T/sweep" --format json | cmp - "$T/plain.json" || fail "merged JSON differs"
say "round 1: $SHARDS shards merged, byte-identical to the unsharded run ($(wc -l <"$T/plain.csv") CSV lines)"

# Round 2: shard 2 fails; merge exits 1 and names it.
rm "$T/sweep"/part-2-of-*.json
jid=$(HERD_CI_FAIL_SHARD=2 sbatch --parsable --array=2 "$T/sweep.sh")
JOBS+=("$jid")
wait_job "$jid" "1 3:0" 1
if "$H" merge "$T/sweep" >"$T/m2.out" 2>"$T/m2.err"; then fail "merge with a failed shard exited 0"; fi
[ ! -s "$T/m2.out" ] || fail "merge with a failed shard printed a table"
cat "$T/m2.err"
list=$(sed -n 's/.*sbatch --array=\([0-9,-]*\) .*/\1/p' "$T/m2.err")
[ "$list" = 2 ] || fail "merge listed '$list', want 2"

# Round 3: resubmit what merge listed; the sweep completes.
jid=$(sbatch --parsable --array="$list" "$T/sweep.sh")
JOBS+=("$jid")
wait_job "$jid" "1 0:0" 1
"$H" merge "$T/sweep" | cmp - "$T/plain.csv" || fail "merged CSV differs after the resubmission"
say "round 3: resubmitted shard $list, merge byte-identical again"
say "passed in $(( $(date +%s) - t0 )) s"
