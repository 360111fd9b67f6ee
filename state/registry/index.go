package registry

import (
	"hash/maphash"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
)

// index finds the slot of a key. It is an open-addressing table with linear
// probing, kept at most half full, whose deletions move the following
// buckets back instead of leaving tombstones: a registry at its bound
// inserts and deletes a block for every block it learns, and tombstones
// (which Go's maps leave) would lengthen every probe until the next
// rehash. A bucket holds the slot and 32 bits of the key's hash, so a
// probe reads the entry only when the bits match, and the table of a
// hundred thousand blocks takes 2 MiB.
//
// Block keys are hashes of content a client chooses, so their bits could
// be chosen to collide; positions come from a hash seeded per process.
type index struct {
	seed    maphash.Seed
	buckets []bucket // a power of two of them
	n       int      // buckets in use
}

// A bucket is a slot, 0 for empty, and the low 32 bits of its key's hash.
type bucket struct {
	at   slot
	hash uint32
}

// minBuckets is the size of a new index's table.
const minBuckets = 1 << 10

func newIndex() index {
	return index{seed: maphash.MakeSeed(), buckets: make([]bucket, minBuckets)}
}

func (x *index) hash(k block.Key) uint32 { return uint32(maphash.Comparable(x.seed, k)) }

func (x *index) mask() uint32 { return uint32(len(x.buckets) - 1) }

// find returns the slot of k, or 0; es are the slab's entries.
func (x *index) find(k block.Key, es *entries) slot {
	h := x.hash(k)
	for i := h & x.mask(); ; i = (i + 1) & x.mask() {
		b := x.buckets[i]
		if b.at == 0 {
			return 0
		}
		if b.hash == h && es.at(b.at).key == k {
			return b.at
		}
	}
}

// insert adds k, which must be absent, at slot at.
func (x *index) insert(k block.Key, at slot) {
	if 2*(x.n+1) > len(x.buckets) {
		x.grow()
	}
	x.place(bucket{at: at, hash: x.hash(k)})
	x.n++
}

// place puts b in the first empty bucket from its home on.
func (x *index) place(b bucket) {
	i := b.hash & x.mask()
	for x.buckets[i].at != 0 {
		i = (i + 1) & x.mask()
	}
	x.buckets[i] = b
}

// grow doubles the table.
func (x *index) grow() {
	old := x.buckets
	x.buckets = make([]bucket, 2*len(old))
	for _, b := range old {
		if b.at != 0 {
			x.place(b)
		}
	}
}

// remove deletes k, found at slot at; entries are the slab's.
func (x *index) remove(k block.Key, at slot) {
	h := x.hash(k)
	m := x.mask()
	i := h & m
	for x.buckets[i].at != at {
		if x.buckets[i].at == 0 {
			return // not there
		}
		i = (i + 1) & m
	}
	x.n--
	// Empty bucket i, then move back every later bucket of the cluster
	// whose home is not between i (exclusive) and its position (inclusive),
	// so that no probe meets a gap before reaching its key.
	for j := i; ; {
		x.buckets[i] = bucket{}
		for {
			j = (j + 1) & m
			b := x.buckets[j]
			if b.at == 0 {
				return
			}
			home := b.hash & m
			if (j-home)&m >= (j-i)&m {
				x.buckets[i] = b
				i = j
				break
			}
		}
	}
}
