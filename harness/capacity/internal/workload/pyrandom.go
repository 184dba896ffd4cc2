package workload

// Constants of the MT19937 Mersenne Twister as used by CPython's _randommodule.c.
const (
	mtN         = 624
	mtM         = 397
	mtMatrixA   = 0x9908b0df
	mtUpperMask = 0x80000000
	mtLowerMask = 0x7fffffff
)

// pyRandom reproduces the random numbers of CPython's random.Random(int_seed), so a run's
// sampled context plan is identical to the original Python tool's for the same seed. It is
// not safe for concurrent use; the plan is drawn once, up front.
type pyRandom struct {
	mt  [mtN]uint32
	idx int
}

// newPyRandom returns the generator of Python's random.Random(seed). Like CPython it seeds
// with init_by_array over the 32-bit little-endian words of |seed| (key [0] for seed 0), so
// seed and −seed give the same sequence.
func newPyRandom(seed int64) *pyRandom {
	u := uint64(seed)
	if seed < 0 {
		u = -u // two's complement: also right for math.MinInt64 (|seed| = 2^63)
	}
	key := []uint32{uint32(u)}
	if hi := uint32(u >> 32); hi != 0 {
		key = append(key, hi)
	}
	r := &pyRandom{}
	r.initByArray(key)
	return r
}

// initGenrand is MT19937's init_genrand.
func (r *pyRandom) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < mtN; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.idx = mtN
}

// initByArray is MT19937's init_by_array, which CPython uses for integer seeds.
func (r *pyRandom) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	for k := max(mtN, len(key)); k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= mtN {
			r.mt[0] = r.mt[mtN-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k := mtN - 1; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= mtN {
			r.mt[0] = r.mt[mtN-1]
			i = 1
		}
	}
	r.mt[0] = 0x80000000 // MSB is 1, assuring a non-zero initial array
}

// next32 is MT19937's genrand_uint32: the next tempered 32-bit output.
func (r *pyRandom) next32() uint32 {
	if r.idx >= mtN {
		r.twist()
	}
	y := r.mt[r.idx]
	r.idx++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// twist regenerates the whole state block.
func (r *pyRandom) twist() {
	for k := range mtN {
		y := (r.mt[k] & mtUpperMask) | (r.mt[(k+1)%mtN] & mtLowerMask)
		v := r.mt[(k+mtM)%mtN] ^ (y >> 1)
		if y&1 != 0 {
			v ^= mtMatrixA
		}
		r.mt[k] = v
	}
	r.idx = 0
}

// Random returns the next float in [0, 1), exactly as Python's random.random():
// (a·2^26 + b) / 2^53 with a the top 27 and b the top 26 bits of two successive outputs.
func (r *pyRandom) Random() float64 {
	a := r.next32() >> 5
	b := r.next32() >> 6
	// Every step is exact in float64 (a·2^26 + b < 2^53), so the result is bit-identical.
	return (float64(a)*67108864.0 + float64(b)) * (1.0 / 9007199254740992.0)
}
