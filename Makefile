# Convenience targets; the scripts are the source of truth.
.PHONY: build test bench bench-smoke ycsb

build:
	go build ./...

test:
	scripts/test.sh

# The benchmark (a few minutes; see docs/benchmarks.md, BENCH_* in scripts/bench.sh).
bench:
	scripts/bench.sh

# A seconds-long run of every workload against the in-process ceiling.
bench-smoke:
	go test -count=1 ./bench/...

# Optional: the unmodified go-ycsb cassandra binding against cqld.
ycsb:
	scripts/ycsb.sh
