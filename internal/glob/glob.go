// Package glob matches model names against the patterns of the
// configuration (thinking_models, backend_profile, the transports' model
// mappings): "*" stands for any run of characters, slashes and colons
// included ("ollama/qwen3:*"), "?" for one character, and nothing else is
// special. Matching is case-sensitive, as model names are.
package glob

// Match reports whether name matches pattern as a whole. It backtracks
// only to the last star, so it runs in time proportional to
// len(pattern)*len(name) at worst.
func Match(pattern, name string) bool {
	p, n := 0, 0
	star, mark := -1, 0
	for n < len(name) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, n
			p++
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == name[n]):
			if pattern[p] == '?' {
				n += runeLen(name[n:]) - 1
			}
			p++
			n++
		case star >= 0:
			p, mark = star+1, mark+1
			n = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// runeLen returns the length in bytes of the character s starts with.
func runeLen(s string) int {
	for i := range s {
		if i > 0 {
			return i
		}
	}
	return len(s)
}
