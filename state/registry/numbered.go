package registry

// numbered gives values small numbers that index a slice, so that a block's
// entry names its scope or thread in 4 bytes, not a pointer; the numbers
// of values let go are given again. Number 0 is never given: it means none.
type numbered[N ~uint32, V comparable] struct {
	byNumber []V // [0] is unused
	free     []N
}

func newNumbered[N ~uint32, V comparable]() numbered[N, V] {
	return numbered[N, V]{byNumber: make([]V, 1)}
}

// add numbers v.
func (n *numbered[N, V]) add(v V) N {
	if k := len(n.free); k > 0 {
		i := n.free[k-1]
		n.free = n.free[:k-1]
		n.byNumber[i] = v
		return i
	}
	n.byNumber = append(n.byNumber, v)
	return N(len(n.byNumber) - 1)
}

// remove lets number i go.
func (n *numbered[N, V]) remove(i N) {
	var zero V
	n.byNumber[i] = zero
	n.free = append(n.free, i)
}

// at returns the value numbered i.
func (n *numbered[N, V]) at(i N) V { return n.byNumber[i] }
