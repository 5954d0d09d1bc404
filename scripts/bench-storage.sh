#!/usr/bin/env bash
# Storage engine against raw Pebble (issue 5's figure): single-row writes
# and point reads through internal/storage against raw Pebble Set/Get of the
# same keys and values, interleaved in chunks in one loop so that both see
# the same machine load (BenchmarkVsRaw in internal/storage). Prints each
# run and the median engine throughput as a percentage of raw Pebble's
# (goal: >= 50).
#
# Environment: BENCH_STORAGE_OPS (operations per run, 200000),
# BENCH_STORAGE_COUNT (runs, 5).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

OPS=${BENCH_STORAGE_OPS:-200000}
COUNT=${BENCH_STORAGE_COUNT:-5}
out=$(mktemp "${TMPDIR:-/tmp}/cqld-bench-storage.XXXXXX")
trap 'rm -f "$out"' EXIT

echo "=== $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3)"
go test ./internal/storage -run '^$' -bench 'VsRaw/(read|write)/interleaved' \
	-benchtime "${OPS}x" -count "$COUNT" | tee "$out"

# median of the %-of-raw column per benchmark
echo
printf '%-34s %12s %14s %12s\n' benchmark engine-ns raw-ns %-of-raw
for b in read/interleaved write/interleaved; do
	grep "VsRaw/$b" "$out" | awk -v name="$b" 'BEGIN { n = 0 }
	{
		for (i = 1; i < NF; i++) {
			if ($(i+1) ~ /^engine-ns/) e[n] = $i
			if ($(i+1) ~ /^raw-ns/) r[n] = $i
			if ($(i+1) == "%-of-raw") p[n] = $i
		}
		n++
	}
	END {
		if (n == 0) exit
		# sort indexes by %-of-raw and print the middle run
		for (i = 0; i < n; i++) idx[i] = i
		for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (p[idx[j]] < p[idx[i]]) { t = idx[i]; idx[i] = idx[j]; idx[j] = t }
		m = idx[int(n / 2)]
		printf "%-34s %12s %14s %12s  (median of %d; range %s-%s)\n", "VsRaw/" name, e[m], r[m], p[m], n, p[idx[0]], p[idx[n-1]]
	}'
done
