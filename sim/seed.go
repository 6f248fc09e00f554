package sim

import "hash/fnv"

// mix64 is the SplitMix64 finaliser (Steele, Lea & Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014): a bijection on 64-bit
// words that spreads every input bit over the output.
func mix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Seed derives the seed of one run from the master seed, the run's identity
// (Config.Key, or any canonical description of its parameters) and its
// replication index. Seeds never depend on the order or the worker a run
// is given, so a sweep split across machines reproduces the whole one.
func Seed(master uint64, identity string, rep int) uint64 {
	h := fnv.New64a()
	h.Write([]byte(identity))
	return mix64(mix64(master^h.Sum64()) + uint64(rep))
}
