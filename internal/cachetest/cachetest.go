// Package cachetest helps benchmarks time code as a busy process runs it:
// cold. In the running Caddy a stream's Writes come one at a time, between
// reads of the upstream, and the kernel, the other requests and the other
// processes of the machine run in between; what a Write's code and data
// were doing in the caches is gone by the next one. A benchmark that loops
// over the same Writes keeps them warm, and measures a cost the process
// never pays. Test code only.
package cachetest

// evictionBytes is more than the L2 caches of the machines the benchmarks
// run on (1 MiB a core on the bench's AMD EPYC, by /proc/cpuinfo), so
// that touching it leaves nothing of the code or data used before in
// them; they come back from the shared L3 or memory, as in the process.
const evictionBytes = 4 << 20

// eviction is written over by Evict; made at its first call, so that the
// tests of a package whose benchmarks use it do not carry it.
var eviction []byte

// sink keeps Evict's reads from being optimized away.
var sink byte

// Evict writes a byte of every cache line of a buffer larger than the L2
// caches, then reads fresh back into them: the bytes a Write is given are
// in the caches in the process, where reverse_proxy has just read them
// from the upstream. It is not safe for concurrent use, and takes tens of
// microseconds: time around it, not across it.
func Evict(fresh []byte) {
	if eviction == nil {
		eviction = make([]byte, evictionBytes)
	}
	for i := 0; i < len(eviction); i += 64 {
		eviction[i]++
	}
	for i := 0; i < len(fresh); i += 64 {
		sink += fresh[i]
	}
}
