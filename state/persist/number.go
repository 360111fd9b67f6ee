package persist

import "math"

// parseUint reads a JSON integer that is not negative, from the bytes of a
// file, without the allocation of a string for strconv. It accepts what
// JSON does (no sign, no leading zero) and what fits in 64 bits.
func parseUint(b []byte) (uint64, bool) {
	return parseDigits(b, math.MaxUint64)
}

// parseInt reads a JSON integer that fits in 64 bits, as parseUint does.
func parseInt(b []byte) (int64, bool) {
	if len(b) > 0 && b[0] == '-' {
		u, ok := parseDigits(b[1:], 1<<63)
		return -int64(u), ok // -(1<<63) wraps to itself: math.MinInt64
	}
	u, ok := parseDigits(b, math.MaxInt64)
	return int64(u), ok
}

// parseDigits reads decimal digits worth at most limit.
func parseDigits(b []byte, limit uint64) (uint64, bool) {
	if len(b) == 0 || len(b) > 1 && b[0] == '0' {
		return 0, false
	}
	var u uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if u > (limit-d)/10 {
			return 0, false
		}
		u = u*10 + d
	}
	return u, true
}
