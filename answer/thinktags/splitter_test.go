package thinktags

import (
	"fmt"
	"testing"
	"unicode/utf8"
)

// splitPieces feeds pieces to a new Splitter and returns its runs, copied.
func splitPieces(assumeOpen bool, maxSections int, pieces ...string) ([]Run, *Splitter) {
	s := NewSplitter(assumeOpen, maxSections)
	var all []Run
	for _, p := range pieces {
		for _, r := range s.Split(nil, []byte(p)) {
			all = append(all, Run{Thinking: r.Thinking, Text: []byte(string(r.Text))})
		}
	}
	for _, r := range s.Flush(nil) {
		all = append(all, Run{Thinking: r.Thinking, Text: []byte(string(r.Text))})
	}
	return all, &s
}

func T(s string) Run { return Run{Thinking: true, Text: []byte(s)} }
func X(s string) Run { return Run{Text: []byte(s)} }

func TestSplitter(t *testing.T) {
	tests := []struct {
		name       string
		text       string
		assumeOpen bool
		want       []Run
		altered    bool
	}{
		{"no tags", "plain <b>text</b> a<b", false, []Run{X("plain <b>text</b> a<b")}, false},
		{"empty", "", false, nil, false},
		{"section first", "<think>\nplan\n</think>\n\nanswer", false, []Run{T("plan\n"), X("answer")}, true},
		{"text before a section", "Sure. <think>hm</think> Done.", false, []Run{X("Sure. "), T("hm"), X("Done.")}, true},
		{"several sections", "<think>a</think>b<think>c</think>d", false, []Run{T("a"), X("b"), T("c"), X("d")}, true},
		{"sections back to back make one", "<think>a</think>\n<think>b</think>", false, []Run{T("ab")}, true},
		{"empty section", "<think>\n\n</think>\n\nanswer", false, []Run{X("answer")}, true},
		{"never closed", "<think>still thinking", false, []Run{T("still thinking")}, true},
		{"stray close tag is text", "a</think>b", false, []Run{X("a</think>b")}, false},
		{"no nesting", "<think>a<think>b</think>c", false, []Run{T("a<think>b"), X("c")}, true},
		{"redundant open tag", "<think><think>\na</think>c", false, []Run{T("a"), X("c")}, true},
		{"almost tags", "<thin <think <thinker> </thinking>", false, []Run{X("<thin <think <thinker> </thinking>")}, false},
		{"partial tag at the end", "answer <thin", false, []Run{X("answer <thin")}, false},
		{"partial close tag at the end", "<think>a</thin", false, []Run{T("a</thin")}, true},
		{"R1: no opening tag", "Okay, so.\n</think>\n\nHi!", true, []Run{T("Okay, so.\n"), X("Hi!")}, true},
		{"R1: explicit opening tag too", "<think>\nOkay</think>Hi", true, []Run{T("Okay"), X("Hi")}, true},
		{"R1: never closed", "all thinking", true, []Run{T("all thinking")}, false},
		{"R1: closed at once", "</think>Hi", true, []Run{X("Hi")}, true},
		{"R1: later sections", "a</think>b<think>c</think>d", true, []Run{T("a"), X("b"), T("c"), X("d")}, true},
		{"multibyte", "<think>用户用中文说😀</think>\n\n你好！", false, []Run{T("用户用中文说😀"), X("你好！")}, true},
		{"only whitespace after tags", "<think> \t\r\n</think> \n", false, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := referenceSplit(tt.text, tt.assumeOpen, maxSections)
			if runsString(ref) != runsString(tt.want) {
				t.Fatalf("reference: %s, want %s", runsString(ref), runsString(tt.want))
			}
			p := []byte(tt.text)
			for i := 0; i <= len(p); i++ {
				for j := i; j <= len(p); j++ {
					got, s := splitPieces(tt.assumeOpen, maxSections, tt.text[:i], tt.text[i:j], tt.text[j:])
					if runsString(merged(got)) != runsString(tt.want) {
						t.Fatalf("cut at %d and %d: %s, want %s", i, j, runsString(merged(got)), runsString(tt.want))
					}
					if s.Altered() != tt.altered {
						t.Fatalf("cut at %d and %d: Altered() = %v", i, j, s.Altered())
					}
				}
			}
		})
	}
}

func TestSplitterHoldsOnlyAPossibleTag(t *testing.T) {
	tests := []struct {
		piece string
		emits string // what the piece gives at once
	}{
		{"abc", "abc"},
		{"abc<", "abc"},
		{"abc<th", "abc"},
		{"abc<think", "abc"},
		{"abc<x", "abc<x"},
		{"a<b<", "a<b"},
		{"abc</think", "abc</think"}, // no section is open
		{"é", "é"},
		{"a\xe4\xbd", "a"},         // the start of 你
		{"a\xf0\x9f\x98", "a"},     // the start of 😀
		{"a\xe4A", "a\xe4A"},       // not a character: nothing to wait for
		{"a\xbd\xa0", "a\xbd\xa0"}, // stray continuation bytes
	}
	for _, tt := range tests {
		s := NewSplitter(false, maxSections)
		var got []byte
		for _, r := range s.Split(nil, []byte(tt.piece)) {
			got = append(got, r.Text...)
		}
		if string(got) != tt.emits {
			t.Errorf("Split(%q) emits %q, want %q", tt.piece, got, tt.emits)
		}
		if held := len(tt.piece) - len(tt.emits); s.Holding() != (held > 0) || held > len(closeTag)-1 {
			t.Errorf("Split(%q): Holding() = %v", tt.piece, s.Holding())
		}
	}
}

func TestSplitterNeverCutsACharacter(t *testing.T) {
	text := "<think>用户😀é</think>\n你好😀!"
	for i := 0; i <= len(text); i++ {
		for j := i; j <= len(text); j++ {
			got, _ := splitPieces(false, maxSections, text[:i], text[i:j], text[j:])
			for _, r := range got {
				if !utf8.Valid(r.Text) {
					t.Fatalf("cut at %d and %d: run %q is not whole characters", i, j, r.Text)
				}
			}
		}
	}
}

func TestSplitterSectionLimit(t *testing.T) {
	for _, tt := range []struct {
		max        int
		assumeOpen bool
		text       string
		want       []Run
	}{
		{0, false, "<think>a</think>b", []Run{X("<think>a</think>b")}},
		{0, true, "a</think>b", []Run{X("a</think>b")}},
		{1, false, "<think>a</think>b<think>c</think>", []Run{T("a"), X("b<think>c</think>")}},
		{1, true, "a</think>b<think>c", []Run{T("a"), X("b<think>c")}},
		{2, false, "<think>a</think><think>b</think><think>c</think>", []Run{T("a"), T("b"), X("<think>c</think>")}},
	} {
		name := fmt.Sprintf("%d %v %q", tt.max, tt.assumeOpen, tt.text)
		got, s := splitPieces(tt.assumeOpen, tt.max, tt.text)
		if runsString(merged(got)) != runsString(merged(tt.want)) {
			t.Errorf("%s: %s, want %s", name, runsString(merged(got)), runsString(merged(tt.want)))
		}
		if ref := referenceSplit(tt.text, tt.assumeOpen, tt.max); runsString(ref) != runsString(merged(tt.want)) {
			t.Errorf("%s: reference %s", name, runsString(ref))
		}
		if s.Left() != 0 {
			t.Errorf("%s: Left() = %d", name, s.Left())
		}
	}
}
