// Package cachetest helps benchmarks time code as a busy process runs it:
// cold. In the running Caddy a stream's Writes come one at a time, between
// reads of the upstream, and the kernel, the other requests and the other
// processes of the machine run in between; what a Write's code and data
// were doing in the caches is gone by the next one. A benchmark that loops
// over the same Writes keeps them warm, and measures a cost the process
// never pays. Test code only.
package cachetest

// PastL2 is more than the L2 caches of the machines the benchmarks run on
// (1 MiB a core on the bench's AMD EPYC, by /proc/cpuinfo), so that
// writing over it leaves nothing of the code or data used before in them;
// they come back from the shared L3 or memory, as in the process.
const PastL2 = 4 << 20

// eviction is written over by EvictBytes; made, and grown, as a call asks
// for more, so that the tests of a package whose benchmarks use it do not
// carry it.
var eviction []byte

// sink keeps EvictBytes' reads from being optimized away.
var sink byte

// Evict is EvictBytes(PastL2, fresh): the caches a core has to itself
// emptied, then fresh read back into them. The bytes a Write is given are
// in the caches in the process, where reverse_proxy has just read them
// from the upstream.
func Evict(fresh []byte) { EvictBytes(PastL2, fresh) }

// EvictBytes writes a byte of every cache line of n bytes, then reads
// fresh (which may be nil) back into the caches. It is not safe for
// concurrent use, and takes tens of microseconds a MiB: time around it,
// not across it.
func EvictBytes(n int, fresh []byte) {
	if len(eviction) < n {
		eviction = make([]byte, n)
	}
	for i := 0; i < n; i += 64 {
		eviction[i]++
	}
	for i := 0; i < len(fresh); i += 64 {
		sink += fresh[i]
	}
}
