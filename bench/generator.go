package bench

import (
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
)

// The key choosers below are ports of YCSB's core generators
// (site.ycsb.generator.ZipfianGenerator, ScrambledZipfianGenerator,
// SkewedLatestGenerator), so that "workload A" here picks keys the way YCSB
// does: the same skew (zipfian constant 0.99) and the same scrambling.

const (
	zipfianConstant = 0.99
	// YCSB's ScrambledZipfianGenerator draws from a fixed 10^10 item space
	// with a precomputed zeta, then hashes into [0, items).
	scrambledItemCount = 10_000_000_000
	scrambledZetan     = 26.46902820178302
)

// zipfian draws integers in [0, items) with item 0 the most popular (Gray et
// al., "Quickly Generating Billion-Record Synthetic Databases"). It is not
// safe for concurrent use; each worker owns one.
type zipfian struct {
	items             int64
	theta, alpha, eta float64
	zetan, zeta2theta float64
	countForZeta      int64
}

func newZipfian(items int64, zetan float64) *zipfian {
	z := &zipfian{items: items, theta: zipfianConstant}
	z.zeta2theta = zeta(0, 2, z.theta, 0)
	z.alpha = 1 / (1 - z.theta)
	if zetan == 0 {
		zetan = zeta(0, items, z.theta, 0)
	}
	z.zetan = zetan
	z.countForZeta = items
	z.eta = z.computeEta()
	return z
}

func (z *zipfian) computeEta() float64 {
	return (1 - math.Pow(2/float64(z.items), 1-z.theta)) / (1 - z.zeta2theta/z.zetan)
}

// zeta returns sum_{i=st+1..n} 1/i^theta added to initial.
func zeta(st, n int64, theta, initial float64) float64 {
	sum := initial
	for i := st; i < n; i++ {
		sum += 1 / math.Pow(float64(i+1), theta)
	}
	return sum
}

// next draws from [0, items); when items grew since the last call the zeta
// constant is extended incrementally (YCSB does the same for "latest").
func (z *zipfian) next(r *rand.Rand, items int64) int64 {
	if items != z.countForZeta && items > 1 {
		if items > z.countForZeta {
			z.zetan = zeta(z.countForZeta, items, z.theta, z.zetan)
		} else {
			z.zetan = zeta(0, items, z.theta, 0)
		}
		z.countForZeta = items
		z.items = items
		z.eta = z.computeEta()
	}
	u := r.Float64()
	uz := u * z.zetan
	if uz < 1 {
		return 0
	}
	if uz < 1+math.Pow(0.5, z.theta) {
		return 1
	}
	return int64(float64(z.items) * math.Pow(z.eta*u-z.eta+1, z.alpha))
}

// fnv64 is YCSB's Utils.fnvhash64 (FNV-1 over the 8 little-endian bytes,
// made non-negative).
func fnv64(v int64) int64 {
	const offset, prime = uint64(0xCBF29CE484222325), uint64(1099511628211)
	h := offset
	for i := 0; i < 8; i++ {
		octet := uint64(v) & 0xff
		v >>= 8
		h ^= octet
		h *= prime
	}
	r := int64(h)
	if r < 0 {
		r = -r
	}
	return r
}

// keyChooser picks the record number of the next read or update.
type keyChooser interface {
	next(r *rand.Rand) int64
}

type uniformChooser struct{ items int64 }

func (u uniformChooser) next(r *rand.Rand) int64 { return r.Int64N(u.items) }

// scrambledZipfian spreads the popular items over the key space.
type scrambledZipfian struct {
	items int64
	z     *zipfian
}

func newScrambledZipfian(items int64) *scrambledZipfian {
	return &scrambledZipfian{items: items, z: newZipfian(scrambledItemCount, scrambledZetan)}
}

func (s *scrambledZipfian) next(r *rand.Rand) int64 {
	return fnv64(s.z.next(r, scrambledItemCount)) % s.items
}

// skewedLatest favours the most recently inserted records (workload D).
type skewedLatest struct {
	acked *ackedCounter
	z     *zipfian
}

func (s *skewedLatest) next(r *rand.Rand) int64 {
	max := s.acked.last()
	v := max - s.z.next(r, max+1)
	if v < 0 {
		v = 0
	}
	return v
}

// ackedCounter hands out insert record numbers and tracks the highest
// number below which every insert has been acknowledged, so that "latest"
// reads only pick records that exist (YCSB's AcknowledgedCounterGenerator).
type ackedCounter struct {
	mu      sync.Mutex
	nextNum int64
	limit   int64 // every record < limit is acknowledged
	done    map[int64]bool
}

func newAckedCounter(start int64) *ackedCounter {
	return &ackedCounter{nextNum: start, limit: start, done: make(map[int64]bool)}
}

func (c *ackedCounter) take() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.nextNum
	c.nextNum++
	return n
}

func (c *ackedCounter) ack(n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done[n] = true
	for c.done[c.limit] {
		delete(c.done, c.limit)
		c.limit++
	}
}

// last is the highest record number known to exist.
func (c *ackedCounter) last() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.limit - 1
}

// ycsbKey is YCSB's key for a record number with orderedinserts=false.
func ycsbKey(n int64) string {
	return "user" + strconv.FormatInt(fnv64(n), 10)
}
