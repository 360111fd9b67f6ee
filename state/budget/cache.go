package budget

import (
	"math/bits"
	"runtime"
)

// Buffer sizes. Buffers up to maxCachedBuffer come in powers of two from
// minBuffer, so that one let go serves the next request of about its size
// (long Claude Code sessions send hundreds of KiB on every request; a new
// buffer each time costs more garbage collection than the whole rewrite).
// Larger ones are sized to what they must hold, in pages, and are never
// cached: a rare huge body must not pin its memory.
const (
	minBuffer       = 4 << 10
	maxCachedBuffer = 4 << 20
	// firstRead is the first buffer of a body longer than it, or of
	// unknown length: it grows from there as the bytes arrive.
	firstRead = 32 << 10
	// maxCacheBytes bounds the cache whatever the budget.
	maxCacheBytes = 32 << 20
	// pageSize is the unit in which Go allocates buffers above 32 KiB.
	pageSize = 8 << 10
	// bufferClasses counts the cached sizes.
	bufferClasses = 11 // 4 KiB << 0 ... 4 KiB << 10 = 4 MiB
)

// bufferSize returns the size of the buffer allocated to hold need bytes.
func bufferSize(need int) int64 {
	switch {
	case need <= minBuffer:
		return minBuffer
	case need <= maxCachedBuffer:
		return 1 << bits.Len(uint(need-1))
	}
	return roundUp(int64(need), pageSize)
}

// charge returns the memory a buffer of the given capacity takes: its
// capacity, in whole pages when it spans pages.
func charge(capacity int) int64 {
	if capacity < pageSize {
		return int64(capacity)
	}
	return roundUp(int64(capacity), pageSize)
}

func roundUp(n, unit int64) int64 { return (n + unit - 1) / unit * unit }

// classOf returns the cache class of a buffer of the given capacity, and
// whether it has one.
func classOf(capacity int) (int, bool) {
	if capacity < minBuffer || capacity > maxCachedBuffer || capacity&(capacity-1) != 0 {
		return 0, false
	}
	return bits.Len(uint(capacity)) - bits.Len(uint(minBuffer)), true
}

// bufferCache keeps buffers given back for reuse, by size. It is guarded by
// the budget's lock, which counts what it holds.
type bufferCache struct {
	classes [bufferClasses][][]byte
	bytes   int64
	// drop lets go of a buffer the cache no longer keeps (see
	// Budget.forget).
	drop func([]byte)
	// idleCycles counts, per size, the garbage collections since a buffer
	// was last taken of it (see idle).
	idleCycles [bufferClasses]uint8
}

// reach is how many classes above the one asked for a request may take a
// buffer from: up to four times what it needs.
const reach = 2

// take removes and returns a cached buffer of at least need bytes and at
// most four times that, or nil.
func (c *bufferCache) take(need int) []byte { return c.takeUpTo(need, reach) }

// takeAny removes and returns the smallest cached buffer of at least need
// bytes, however much larger, or nil: a request waiting for room is better
// served by a buffer larger than it needs than by the cache let go to make
// room for a new one.
func (c *bufferCache) takeAny(need int) []byte { return c.takeUpTo(need, bufferClasses) }

// takeUpTo removes and returns the smallest cached buffer of at least need
// bytes whose size class is at most above classes over need's, or nil.
func (c *bufferCache) takeUpTo(need, above int) []byte {
	first, ok := classOf(int(bufferSize(need)))
	if !ok {
		return nil
	}
	for k := first; k < min(first+above+1, bufferClasses); k++ {
		if len(c.classes[k]) > 0 {
			return c.pop(k)
		}
	}
	return nil
}

// pop takes the last buffer of class k, which has one.
func (c *bufferCache) pop(k int) []byte {
	c.idleCycles[k] = 0
	return c.remove(k)
}

// remove removes and returns the last buffer of class k, which has one.
func (c *bufferCache) remove(k int) []byte {
	n := len(c.classes[k])
	buf := c.classes[k][n-1]
	c.classes[k][n-1] = nil
	c.classes[k] = c.classes[k][:n-1]
	c.bytes -= int64(cap(buf))
	return buf
}

// idle, called once per garbage collection, lets go of the buffers of
// every size none was taken of through the last two, as sync.Pool lets go
// of what two collections found unused: the growth steps of a burst, sizes
// no request asks for any more.
func (c *bufferCache) idle() {
	for k := range c.classes {
		if c.idleCycles[k] = min(c.idleCycles[k]+1, 2); c.idleCycles[k] == 2 {
			for len(c.classes[k]) > 0 {
				c.drop(c.remove(k))
			}
		}
	}
}

// add keeps buf for reuse when it has a class, and reports whether it did.
func (c *bufferCache) add(buf []byte) bool {
	k, ok := classOf(cap(buf))
	if !ok {
		return false
	}
	c.classes[k] = append(c.classes[k], buf[:0])
	c.bytes += int64(cap(buf))
	return true
}

// trim lets go of the largest buffers until the cache holds at most limit
// bytes.
func (c *bufferCache) trim(limit int64) {
	for k := bufferClasses - 1; k >= 0 && c.bytes > limit; k-- {
		for len(c.classes[k]) > 0 && c.bytes > limit {
			c.drop(c.remove(k))
		}
	}
}

// evict lets go of the largest buffers until n bytes or all are gone.
func (c *bufferCache) evict(n int64) { c.trim(max(c.bytes-n, 0)) }

// watchCycles has cycle run after the next garbage collection, and so
// after every one: a cleanup of an object nothing references runs once
// the collection that found it is done, and arms the next.
func (b *Budget) watchCycles() {
	runtime.AddCleanup(new(cycleSentinel), (*Budget).cycle, b)
}

// cycleSentinel is the object whose collection marks a cycle; large enough
// not to share its memory with others (tiny objects may, and then their
// cleanups may never run).
type cycleSentinel [64]byte

// cycle lets go of the cached buffers of every size none was taken of
// through the last two garbage collections, as sync.Pool does: an idle
// gateway does not keep the buffers of its last burst, nor a busy one sizes
// it no longer needs. Not under pressure, when requests waited for room
// since the last collection: a buffer cached then serves a waiter as it
// is, and the cache is let go for them anyway when it is in their way
// (see dispatch). It runs once per collection.
func (b *Budget) cycle() {
	b.mu.Lock()
	if waits := b.waits.Load(); waits == b.waitsSeen && len(b.waiters) == 0 {
		b.cache.idle()
	} else {
		b.waitsSeen = waits
	}
	b.mu.Unlock()
	if !b.closed.Load() {
		b.watchCycles()
	}
}

// trimCache lets go of cached buffers past the cache's bound.
func (b *Budget) trimCache() { b.cache.trim(b.cacheLimit()) }
