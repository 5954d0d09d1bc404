#!/usr/bin/env bash
# Optional, not part of CI: runs the standard tool, go-ycsb
# (github.com/pingcap/go-ycsb v1.0.1, `cassandra` binding, unmodified),
# against a cqld on loopback, to show compatibility with it.
#
# go-ycsb cannot be `go install`ed here (the module proxy hides its version
# list), so it is built from a small wrapper module in a temporary directory
# that requires it, with the thrift replace its old dependency graph needs
# (shared/FACTS.md). The first build downloads a few hundred modules.
#
# Its numbers say little about cqld: its bundled gocql waits 200 µs before
# every write (write coalescing, not configurable), which caps any server at
# ~12k ops/s on this machine. Use scripts/bench.sh for cqld's numbers.
#
# Environment:
#   YCSB_WORKLOADS    go-ycsb workload files to run ("workloada workloadb workloadc workloadd workloadf")
#   YCSB_RECORDS      recordcount (10000)
#   YCSB_OPERATIONS   operationcount per workload (20000)
#   YCSB_THREADS      threadcount (16)
#   YCSB_ADDR         use an already running server at host:port instead of
#                     starting cqld (its keyspace "ycsb" is created if missing)
#   YCSB_BIN          a go-ycsb binary built before (skips the build)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
WORKLOADS=${YCSB_WORKLOADS:-workloada workloadb workloadc workloadd workloadf}
RECORDS=${YCSB_RECORDS:-10000}
OPERATIONS=${YCSB_OPERATIONS:-20000}
THREADS=${YCSB_THREADS:-16}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cqld-ycsb.XXXXXX")
SERVER_PID=""
cleanup() {
	if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
		kill -TERM "$SERVER_PID"
		wait "$SERVER_PID" || true
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
log() { printf '=== %s\n' "$*" >&2; }

log "build go-ycsb v1.0.1 in a wrapper module"
mkdir -p "$WORK/wrap"
cat >"$WORK/wrap/go.mod" <<'EOF'
module cqld.local/ycsbwrap

go 1.26

require github.com/pingcap/go-ycsb v1.0.1

replace github.com/apache/thrift => github.com/apache/thrift v0.0.0-20171203172758-327ebb6c2b6d
EOF
cat >"$WORK/wrap/tools.go" <<'EOF'
//go:build tools

// Package ycsbwrap only pins go-ycsb so that its command can be built.
package ycsbwrap

import _ "github.com/pingcap/go-ycsb/cmd/go-ycsb"
EOF
(
	cd "$WORK/wrap"
	go mod tidy
	if [[ -z "${YCSB_BIN:-}" ]]; then
		go build -o "$WORK/go-ycsb" github.com/pingcap/go-ycsb/cmd/go-ycsb
	fi
	go list -m -f '{{.Dir}}' github.com/pingcap/go-ycsb >"$WORK/ycsb-dir"
)
YCSB=${YCSB_BIN:-$WORK/go-ycsb}
YCSB_DIR=$(cat "$WORK/ycsb-dir")
go build -o "$WORK/cqld-bench" ./bench/cmd/cqld-bench

if [[ -n "${YCSB_ADDR:-}" ]]; then
	ADDR=$YCSB_ADDR
else
	log "start cqld"
	go build -o "$WORK/cqld" ./cmd/cqld
	"$WORK/cqld" start --data-dir "$WORK/data" --listen-address 127.0.0.1 --native-port 0 \
		--admin-port -1 >"$WORK/cqld.log" 2>&1 </dev/null &
	SERVER_PID=$!
	ADDR=""
	for _ in $(seq 1 300); do
		if grep -q 'cqld ready for CQL clients' "$WORK/cqld.log"; then
			ADDR=$(grep -m1 'cqld ready for CQL clients' "$WORK/cqld.log" | grep -o 'native_address=[^ ]*' | sed 's/.*=//')
			break
		fi
		kill -0 "$SERVER_PID" 2>/dev/null || break
		sleep 0.1
	done
	[[ -n "$ADDR" ]] || { cat "$WORK/cqld.log"; echo "cqld did not start" >&2; exit 1; }
fi
log "server at $ADDR"

# The cassandra binding needs its keyspace to exist.
"$WORK/cqld-bench" cql --hosts "$ADDR" \
	"CREATE KEYSPACE IF NOT EXISTS ycsb WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"

props=(-p "cassandra.cluster=$ADDR" -p cassandra.keyspace=ycsb -p cassandra.connections=2
	-p "recordcount=$RECORDS" -p "operationcount=$OPERATIONS" -p "threadcount=$THREADS")
log "load ($RECORDS records)"
timeout 600 "$YCSB" load cassandra -P "$YCSB_DIR/workloads/workloada" "${props[@]}" | tee "$WORK/load.txt"
for w in $WORKLOADS; do
	log "run $w ($OPERATIONS operations)"
	timeout 600 "$YCSB" run cassandra -P "$YCSB_DIR/workloads/$w" "${props[@]}" | tee "$WORK/$w.txt"
done
log "go-ycsb ran ${WORKLOADS// /, } against cqld at $ADDR ($ROOT)"
