package thinking

// A request of tiny blocks costs far more to read than it weighs: a
// thinking block of 20 bytes on the wire is a part and a Block here, then a
// decision, a key and an origin in the policy, a compact part and block in
// its thread's checkpoint, a piece of the rewrite. Reading meters that cost
// as it goes (see Resumption), so that a caller counts it in its memory
// budget before it is spent and refuses a request whose cost is out of
// proportion to its size.

// Meter is told the bytes a request being read takes so far, all told
// (see Footprint); an error stops the reading.
type Meter func(bytes int) error

// What one item of a request takes, with what is made of it downstream:
// measured sizes of this package's structures, the policy's and the
// registry's, rounded up.
const (
	// PartCost is a content block of an assistant message: its part, its
	// compact part in a checkpoint, its piece in a rewrite.
	PartCost = 180
	// BlockCost is what a thinking block adds: its Block, compact block,
	// decision, key, origin.
	BlockCost = 160
	// MessageCost is a message: its structure, compact structure, digest
	// in the History, its plan in a rewrite.
	MessageCost = 130
)

// meterStep is how many items are read between two calls of a Meter.
const meterStep = 1024

// Footprint returns about how many bytes the request read so far takes,
// with what is made of it downstream.
func (r *Request) Footprint() int {
	return len(r.content)*PartCost + len(r.blocks)*BlockCost + len(r.messages)*MessageCost
}

// counted adds n items read, and tells the meter every meterStep items.
func (r *Request) counted(n int) error {
	if r.meter == nil {
		return nil
	}
	before := r.items
	r.items += n
	if r.items/meterStep == before/meterStep {
		return nil
	}
	return r.meter(r.Footprint())
}
