package policy

import (
	"fmt"
	"strings"
)

// Models is the capability policy: the glob patterns of the models that
// can take thinking. A request for a model that matches none of them has
// every thinking and redacted_thinking block removed, whoever produced
// them. An empty Models lets every model take thinking.
//
// A pattern matches the whole model name; "*" stands for any run of
// characters (slashes and colons included: "ollama/qwen3:*"), "?" for one
// character, and nothing else is special. Matching is case-sensitive, as
// model names are.
type Models []string

// CheckModels reports the first pattern that can never match a model name.
func CheckModels(patterns []string) error {
	for _, p := range patterns {
		if strings.TrimSpace(p) == "" {
			return fmt.Errorf("empty pattern")
		}
	}
	return nil
}

// Capable reports whether model may take thinking.
func (m Models) Capable(model string) bool {
	if len(m) == 0 {
		return true
	}
	for _, p := range m {
		if matchGlob(p, model) {
			return true
		}
	}
	return false
}

// matchGlob reports whether name matches pattern, where "*" matches any run
// of bytes and "?" one character. It backtracks only to the last star, so it
// runs in time proportional to len(pattern)*len(name) at worst.
func matchGlob(pattern, name string) bool {
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

// Match reports whether model matches the glob pattern, by the rules of
// Models; the transports map model names with it.
func Match(pattern, model string) bool { return matchGlob(pattern, model) }
