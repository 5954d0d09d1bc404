#!/usr/bin/env bash
# The benchmark: builds cqld and cqld-bench, starts cqld and the protocol
# ceiling (bench/ceiling: cqld's transport over an in-memory map) on loopback,
# loads both, runs the workloads against each in turn (ceiling, then cqld, per
# workload, so that machine noise hits both alike), runs open-loop at half of
# cqld's peak, measures start-to-first-answered-query and idle RSS, and prints
# one markdown table (docs/benchmarks.md records it).
#
# Loopback only; every run is bounded in time. Not part of CI (CI runs
# `go test ./bench/...`, a seconds-long smoke run against the ceiling).
#
# Environment (defaults give a run of about 4 minutes on 2 cores):
#   BENCH_DURATION     measured time per workload and server (8s)
#   BENCH_WARMUP       unmeasured warmup before it (2s)
#   BENCH_RECORDS      YCSB records and wide-partition rows (100000)
#   BENCH_VALUE_SIZE   bytes per YCSB field / wide row (100)
#   BENCH_CONCURRENCY  requests in flight (64)
#   BENCH_CONNECTIONS  connections per host (2)
#   BENCH_WORKLOADS    closed-loop workloads ("a b c f d ts-insert slice")
#   BENCH_ROUNDS       closed-loop rounds (1): every round runs each workload
#                      on the ceiling and then cqld; the table compares each
#                      cqld run with the ceiling run of its round and
#                      summarizes the ratios (median, range) — on a shared
#                      machine, use 3 or more
#   BENCH_OPEN_LOOP    workloads also run open loop at half of each server's
#                      closed-loop peak ("c a"; "" for none)
#   BENCH_OUT          directory for the JSON results and table.md
#                      (default: a new temporary directory, kept)
#   BENCH_PPROF        host:port for cqld --pprof-addr (default: off)
#   BENCH_CQLD_ARGS    extra `cqld start` arguments
#   BENCH_CQLD_BIN, BENCH_BIN  prebuilt cqld and cqld-bench binaries to use
#                      instead of building them
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

DURATION=${BENCH_DURATION:-8s}
WARMUP=${BENCH_WARMUP:-2s}
RECORDS=${BENCH_RECORDS:-100000}
VALUE_SIZE=${BENCH_VALUE_SIZE:-100}
CONCURRENCY=${BENCH_CONCURRENCY:-64}
CONNECTIONS=${BENCH_CONNECTIONS:-2}
WORKLOADS=${BENCH_WORKLOADS:-a b c f d ts-insert slice}
ROUNDS=${BENCH_ROUNDS:-1}
OPEN_LOOP=${BENCH_OPEN_LOOP-c a}
OUT=${BENCH_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/cqld-bench.XXXXXX")}
mkdir -p "$OUT"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cqld-bench-work.XXXXXX")

PIDS=()
cleanup() {
	for pid in "${PIDS[@]}"; do
		if kill -0 "$pid" 2>/dev/null; then
			kill -TERM "$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || true
		fi
	done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { printf '=== %s\n' "$*" >&2; }

# free_port prints a loopback port nothing listens on, below the kernel's
# ephemeral range: a port in that range may be the local end of one of the
# benchmark's own client connections, and a server could not bind it.
free_port() {
	local p lo
	lo=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
	[ "${lo:-0}" -gt 11000 ] || lo=32768
	while :; do
		p=$((10000 + RANDOM % (lo - 10000)))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
}

# wait_ready LOG PID: waits for the "ready for CQL clients" line; prints the port.
wait_ready() {
	local logf=$1 pid=$2
	for _ in $(seq 1 300); do
		if grep -q 'ready for CQL clients' "$logf"; then
			grep -m1 'ready for CQL clients' "$logf" | grep -o 'native_address=[^ ]*' | sed 's/.*://'
			return
		fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "server did not start:" >&2
	cat "$logf" >&2
	exit 1
}

# fsync_probe DIR prints the time of one 4 KiB O_DSYNC append in DIR, the
# commit log's directory as cqld reports it when ready: cqld acknowledges a
# write after the commit log's fsync, the ceiling does not, so write
# workloads' ratios move with it.
fsync_probe() {
	local dir=$1 n=500 f t
	f="$dir/cqld-fsync-probe.$$"
	t=$(LC_ALL=C dd if=/dev/zero of="$f" bs=4k count=$n oflag=dsync 2>&1 | awk '/copied/ {print $(NF-3)}')
	rm -f "$f"
	awk -v t="$t" -v n="$n" -v d="$dir" 'BEGIN { if (t == "") print "unknown"; else printf "%.0f us per 4 KiB O_DSYNC append in %s\n", t / n * 1e6, d }'
}

log "build"
if [[ -n "${BENCH_CQLD_BIN:-}" ]]; then
	cp "$BENCH_CQLD_BIN" "$WORK/cqld"
else
	go build -o "$WORK/cqld" ./cmd/cqld
fi
if [[ -n "${BENCH_BIN:-}" ]]; then
	cp "$BENCH_BIN" "$WORK/cqld-bench"
else
	go build -o "$WORK/cqld-bench" ./bench/cmd/cqld-bench
fi
BENCH="$WORK/cqld-bench"

log "machine"
{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //') x $(nproc)"
	echo "memory: $(free -m | awk '/^Mem:/ {print $2}') MB"
	echo "kernel: $(uname -r)"
	echo "go: $(go version | awk '{print $3}')"
	echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "settings: duration=$DURATION warmup=$WARMUP records=$RECORDS value_size=$VALUE_SIZE concurrency=$CONCURRENCY connections=$CONNECTIONS rounds=$ROUNDS"
} | tee "$OUT/machine.txt"

log "startup: fresh data directory, three times"
: >"$OUT/startup-fresh.txt"
for i in 1 2 3; do
	port=$(free_port)
	"$BENCH" startup --addr "127.0.0.1:$port" --json "$OUT/startup-fresh-$i.json" -- \
		"$WORK/cqld" start --data-dir "$WORK/startup-data-$i" --listen-address 127.0.0.1 \
		--native-port "$port" --admin-port -1 2>&1 | tee -a "$OUT/startup-fresh.txt"
done

log "start cqld and the ceiling"
pprof_args=()
if [[ -n "${BENCH_PPROF:-}" ]]; then
	pprof_args=(--pprof-addr "$BENCH_PPROF")
fi
# shellcheck disable=SC2086 # BENCH_CQLD_ARGS is a list of arguments
"$WORK/cqld" start --data-dir "$WORK/data" --listen-address 127.0.0.1 --native-port 0 \
	--admin-port -1 "${pprof_args[@]}" ${BENCH_CQLD_ARGS:-} >"$OUT/cqld.log" 2>&1 </dev/null &
CQLD_PID=$!
PIDS+=("$CQLD_PID")
"$BENCH" ceiling --listen 127.0.0.1:0 >"$OUT/ceiling.log" 2>&1 </dev/null &
CEIL_PID=$!
PIDS+=("$CEIL_PID")
CQLD_PORT=$(wait_ready "$OUT/cqld.log" "$CQLD_PID")
CEIL_PORT=$(wait_ready "$OUT/ceiling.log" "$CEIL_PID")
# The log directory from cqld's ready line (slog quotes a path with
# spaces); an older cqld without it falls back to the data directory.
COMMITLOG_DIR=$(grep -m1 'ready for CQL clients' "$OUT/cqld.log" | grep -o 'commitlog_directory=\("[^"]*"\|[^ ]*\)' | sed 's/^commitlog_directory=//; s/^"//; s/"$//' || true)
echo "fsync at start: $(fsync_probe "${COMMITLOG_DIR:-$WORK/data}")" | tee -a "$OUT/machine.txt"
log "cqld pid $CQLD_PID port $CQLD_PORT; ceiling pid $CEIL_PID port $CEIL_PORT"

declare -A PORT=([ceiling]=$CEIL_PORT [cqld]=$CQLD_PORT)
declare -A PID=([ceiling]=$CEIL_PID [cqld]=$CQLD_PID)

# bench_run SERVER WORKLOAD OUTFILE ARGS...: one cqld-bench run.
bench_run() {
	local server=$1 workload=$2 out=$3
	shift 3
	"$BENCH" run --port "${PORT[$server]}" --label "$server" --server-pid "${PID[$server]}" \
		--workload "$workload" --records "$RECORDS" --value-size "$VALUE_SIZE" \
		--concurrency "$CONCURRENCY" --connections "$CONNECTIONS" \
		--duration "$DURATION" --warmup "$WARMUP" --json "$out" "$@"
}

for server in ceiling cqld; do
	log "load $server"
	bench_run "$server" c "$OUT/load-ycsb-$server.json" --load-only
	bench_run "$server" slice "$OUT/load-wide-$server.json" --load-only
done

for round in $(seq 1 "$ROUNDS"); do
	for w in $WORKLOADS; do
		for server in ceiling cqld; do
			log "$w on $server (round $round of $ROUNDS)"
			bench_run "$server" "$w" "$OUT/run-$w-$server-r$round.json"
		done
	done
done

for w in $OPEN_LOOP; do
	for server in ceiling cqld; do
		log "$w on $server, open loop at half of its peak"
		peak="$OUT/run-$w-$server-r1.json"
		if [[ ! -f $peak ]]; then
			bench_run "$server" "$w" "$OUT/peak-$w-$server.json"
			peak="$OUT/peak-$w-$server.json"
		fi
		bench_run "$server" "$w" "$OUT/open-$w-$server.json" \
			--rate-from "$peak" --rate-fraction 0.5
	done
done

log "stop"
kill -TERM "$CQLD_PID" "$CEIL_PID"
wait "$CQLD_PID" || echo "cqld exited with status $?" >&2
wait "$CEIL_PID" || true
PIDS=()
du -sh "$WORK/data" | awk '{print "cqld data directory after the run: " $1}' | tee -a "$OUT/machine.txt"

log "startup: restart on the benchmark's data"
port=$(free_port)
"$BENCH" startup --addr "127.0.0.1:$port" --json "$OUT/startup-restart.json" -- \
	"$WORK/cqld" start --data-dir "$WORK/data" --listen-address 127.0.0.1 \
	--native-port "$port" --admin-port -1 2>&1 | tee "$OUT/startup-restart.txt"

shopt -s nullglob
{
	echo
	"$BENCH" table "$OUT"/load-*.json "$OUT"/run-*.json "$OUT"/open-*.json
	echo
	sed 's/^startup: /cqld fresh start: /' "$OUT/startup-fresh.txt"
	echo "cqld restart on the benchmark data: $(sed 's/^startup: //' "$OUT/startup-restart.txt")"
	echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "fsync at end: $(fsync_probe "${COMMITLOG_DIR:-$WORK/data}")"
} | tee "$OUT/table.md"
log "results in $OUT"
