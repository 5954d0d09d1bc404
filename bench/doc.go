// Package bench is cqld's load harness: the YCSB core workloads A, B, C, D
// and F (ported key choosers: scrambled zipfian, skewed latest) and two
// workloads shaped like the seeds' tables — time-series inserts into
// ((sensor_id, day), reading_time) partitions and 50-row slices of wide
// partitions (WHERE pk = ? AND ck > ? LIMIT 50) — driven through the real
// gocql v2 driver with token-aware routing, prepared statements and write
// coalescing off unless Config.WriteCoalesce asks for it (shared/FACTS.md:
// gocql's 200 µs default caps any server at ~12k ops/s on this machine).
//
// A run is closed loop (Concurrency goroutines back to back) or open loop
// (Rate ops/s on a fixed schedule). Open-loop latency is measured from the
// intended start time whenever the client was behind schedule, so a server
// stall is charged to every operation it delayed (no coordinated omission);
// when a worker was early and slept, latency counts from the actual send,
// because the sleep's timer slack (~1 ms on Linux) is the client's. Latencies
// go into HdrHistograms (1 µs .. 60 s, 3 significant digits).
//
// Benchmarks never become timed assertions: bench_test.go only checks that
// every workload runs without errors against the ceiling server
// (bench/ceiling), in a few seconds. scripts/bench.sh runs the real thing;
// docs/benchmarks.md records what it measured.
package bench
