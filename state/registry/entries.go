package registry

// pageSize is how many entries one page of the slab holds (80 KiB).
const pageSize = 1 << 10

// entries is the slab's storage: pages of entries that never move. A
// registry grows a page at a time, so growing never copies what it holds
// nor leaves a superseded array behind for the garbage collector: loading
// a hundred thousand blocks at start costs their memory, not several times
// it.
type entries struct {
	pages []*[pageSize]entry
	n     int // slots handed out, slot 0 included
}

// newEntries returns entries whose slot 0, which stands for none, is taken.
func newEntries() entries { return entries{pages: []*[pageSize]entry{new([pageSize]entry)}, n: 1} }

// at returns the entry in slot s.
func (es *entries) at(s slot) *entry { return &es.pages[s/pageSize][s%pageSize] }

// grow hands out a new slot, adding a page when the last one is full.
func (es *entries) grow() slot {
	if es.n == len(es.pages)*pageSize {
		es.pages = append(es.pages, new([pageSize]entry))
	}
	es.n++
	return slot(es.n - 1)
}
