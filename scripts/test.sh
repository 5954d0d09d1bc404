#!/usr/bin/env bash
# The whole test suite: go vet, go test (unit, CQL logic, gocql driver and crash
# tests), then the Python and Node.js driver smoke tests against a real cqld
# process on a free loopback port with a temporary data directory, and the
# same drivers against a second process with authentication, authorization
# and materialized views enabled (tests/drivers/*/secure.*).
#
# Installs what the driver tests need when it is missing (Debian packages
# python3-cassandra python3-lz4 python3-snappy; npm install in tests/drivers/node).
# Runs unattended (CI=true, no standard input). Exits non-zero if anything failed;
# the last line is "N passed, N failed" for the driver suites.
#
# Environment: GO_TEST_TIMEOUT (default 10m), GO_TEST_FLAGS (extra go test flags).
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
export DEBIAN_FRONTEND=noninteractive

start_time=$(date +%s)
failures=()
drv_passed=0
drv_failed=0

section() { printf '\n=== %s (%ds)\n' "$*" $(( $(date +%s) - start_time )); }
fail() { failures+=("$1"); printf 'FAILED: %s\n' "$1"; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/cqld-test.XXXXXX")
SERVER_PID=""
cleanup() {
	if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
		kill -KILL "$SERVER_PID" 2>/dev/null
		wait "$SERVER_PID" 2>/dev/null
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

section "go version"
go version || { echo "go is not installed"; exit 1; }

section "go vet ./..."
go vet ./... || fail "go vet"

section "go test ./..."
# shellcheck disable=SC2086 # GO_TEST_FLAGS is a list of flags
go test -count=1 -timeout "${GO_TEST_TIMEOUT:-10m}" ${GO_TEST_FLAGS:-} ./... || fail "go test"

section "build cqld"
if ! go build -o "$WORK/cqld" ./cmd/cqld; then
	fail "go build ./cmd/cqld"
	echo "${#failures[@]} stage(s) failed: ${failures[*]}"
	echo "0 passed, 1 failed"
	exit 1
fi

section "driver packages"
if ! /usr/bin/python3 -c 'import cassandra' 2>/dev/null; then
	echo "python3-cassandra missing: installing it with apt-get"
	if ! { apt-get update -q && apt-get install -y -q python3-cassandra python3-lz4 python3-snappy; } </dev/null; then
		echo "apt-get install failed"
	fi
fi
/usr/bin/python3 -c 'import cassandra, lz4; print("python3-cassandra", cassandra.__version__)' ||
	echo "python driver or lz4 unavailable: the Python smoke test will fail"
if [[ ! -d tests/drivers/node/node_modules ]]; then
	echo "installing the Node.js driver (npm install)"
	(cd tests/drivers/node && npm install --no-audit --no-fund --loglevel=error </dev/null) ||
		echo "npm install failed: the Node.js smoke test will fail"
fi

# start_cqld LOG ARGS...: starts cqld on a free loopback port with a fresh
# data directory; sets SERVER_PID and PORT (empty when it did not start).
start_cqld() {
	local log=$1
	shift
	section "start cqld $*"
	rm -rf "$WORK/data"
	"$WORK/cqld" start --data-dir "$WORK/data" --listen-address 127.0.0.1 --native-port 0 \
		--admin-port -1 "$@" >"$log" 2>&1 </dev/null &
	SERVER_PID=$!
	PORT=""
	for _ in $(seq 1 300); do
		if grep -q 'cqld ready for CQL clients' "$log"; then
			PORT=$(grep -m1 'cqld ready for CQL clients' "$log" |
				grep -o 'native_address=[^ ]*' | sed 's/.*://')
			break
		fi
		kill -0 "$SERVER_PID" 2>/dev/null || break
		sleep 0.2
	done
	if [[ -z "$PORT" ]]; then
		fail "cqld did not start"
		cat "$log"
	else
		echo "cqld (pid $SERVER_PID) ready on 127.0.0.1:$PORT"
	fi
}

# stop_cqld: SIGTERM, and the server must exit cleanly within 30 s.
stop_cqld() {
	section "stop cqld"
	if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
		kill -TERM "$SERVER_PID"
		local stopped="" rc
		for _ in $(seq 1 150); do
			kill -0 "$SERVER_PID" 2>/dev/null || { stopped=1; break; }
			sleep 0.2
		done
		if [[ -z "$stopped" ]]; then
			fail "cqld did not stop within 30s of SIGTERM"
			kill -KILL "$SERVER_PID" 2>/dev/null
		fi
		wait "$SERVER_PID"
		rc=$?
		SERVER_PID=""
		if [[ -n "$stopped" && $rc -ne 0 ]]; then
			fail "cqld exited with status $rc after SIGTERM"
		fi
	else
		[[ -n "$PORT" ]] && fail "cqld died during the driver tests"
		SERVER_PID=""
	fi
}

start_cqld "$WORK/cqld.log"

# run_suite NAME LOG CMD...: runs a driver suite and adds up its closing line
# "NAME driver: N passed, M failed"; a suite without one counts as one failure.
run_suite() {
	local name=$1 log=$2
	shift 2
	section "$name driver smoke test"
	local rc=0
	timeout 300 "$@" </dev/null 2>&1 | tee "$log" || rc=$?
	local line
	line=$(grep -E "^$name driver: [0-9]+ passed, [0-9]+ failed$" "$log" | tail -1)
	if [[ -z "$line" ]]; then
		drv_failed=$((drv_failed + 1))
		fail "$name driver (exit $rc, no summary line)"
		return
	fi
	local p f
	p=$(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$line")
	f=$(sed -E 's/.* ([0-9]+) failed$/\1/' <<<"$line")
	drv_passed=$((drv_passed + p))
	drv_failed=$((drv_failed + f))
	if [[ $rc -ne 0 || $f -ne 0 ]]; then
		fail "$name driver (exit $rc)"
	fi
}

if [[ -n "$PORT" ]]; then
	run_suite python "$WORK/python.log" /usr/bin/python3 tests/drivers/python/smoke.py 127.0.0.1 "$PORT"
	run_suite node "$WORK/node.log" node tests/drivers/node/smoke.js 127.0.0.1 "$PORT"
else
	drv_failed=$((drv_failed + 2))
fi

stop_cqld

# The same drivers against a node with authentication, authorization and
# materialized views enabled (cassandra.yaml keys, as Cassandra spells them).
cat >"$WORK/secure.yaml" <<'YAML'
authenticator:
  class_name: org.apache.cassandra.auth.PasswordAuthenticator
authorizer: CassandraAuthorizer
materialized_views_enabled: true
YAML
start_cqld "$WORK/cqld-secure.log" --config "$WORK/secure.yaml"
if [[ -n "$PORT" ]]; then
	run_suite python-secure "$WORK/python-secure.log" /usr/bin/python3 tests/drivers/python/secure.py 127.0.0.1 "$PORT"
	run_suite node-secure "$WORK/node-secure.log" node tests/drivers/node/secure.js 127.0.0.1 "$PORT"
else
	drv_failed=$((drv_failed + 2))
fi
stop_cqld
if (( ${#failures[@]} > 0 )); then
	echo "--- cqld log (last 50 lines)"
	tail -n 50 "$WORK/cqld.log" "$WORK/cqld-secure.log" 2>/dev/null
fi

section "summary"
if (( ${#failures[@]} > 0 )); then
	echo "${#failures[@]} stage(s) failed:"
	printf '  - %s\n' "${failures[@]}"
else
	echo "all stages passed: go vet, go test, python and node driver smoke tests (default and secure nodes)"
fi
echo "total time $(( $(date +%s) - start_time ))s"
echo "${drv_passed} passed, ${drv_failed} failed"
(( ${#failures[@]} == 0 ))
