#!/usr/bin/env bash
# Measures the speed-up of N local shards over one process on this machine:
# the same comparison run whole with one simulation at a time (-j 1), and as
# N shards started together (each -j 1) then merged, alternating for ROUNDS
# rounds in one sitting. Prints each round's wall times and the median ratio.
#
#   hack/shard-speedup.sh [N] [ROUNDS] [JOBS]     (defaults 2 3 20000)
set -euo pipefail
n=${1:-2}
rounds=${2:-3}
jobs=${3:-20000}
pols=fifo,capacity,fair,drf
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/spindle" "$root/cmd/spindle"
s=$work/spindle
"$s" generate synthetic --jobs "$jobs" -o "$work/w.json" >/dev/null
now() { date +%s.%N; }
ratios=()
echo "workload: synthetic --jobs $jobs; policies $pols; $n shards; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$rounds"); do
	t0=$(now)
	"$s" compare -q -j 1 -w "$work/w.json" -p "$pols" -o "$work/whole" >/dev/null
	t1=$(now)
	pids=()
	for i in $(seq 0 $((n - 1))); do
		"$s" compare -q -j 1 -w "$work/w.json" -p "$pols" --shard "$i/$n" -o "$work/part$i" >/dev/null 2>&1 &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p"; done
	parts=()
	for i in $(seq 0 $((n - 1))); do parts+=("$work/part$i"); done
	"$s" merge -o "$work/merged" "${parts[@]}" 2>/dev/null
	t2=$(now)
	whole=$(echo "$t1 - $t0" | bc -l)
	sharded=$(echo "$t2 - $t1" | bc -l)
	ratio=$(echo "$whole / $sharded" | bc -l)
	ratios+=("$ratio")
	printf 'round %d: whole %.2f s, %d shards + merge %.2f s, speed-up %.2f (load %s)\n' "$r" "$whole" "$n" "$sharded" "$ratio" "$(cut -d' ' -f1 /proc/loadavg)"
	rm -rf "$work/whole" "$work/merged" "$work"/part*
done
printf 'median speed-up of %d shards over one process: %.2f\n' "$n" "$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
