package thinktags

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzSplitter checks that however a text is cut into pieces, the Splitter
// gives the thinking and text of referenceSplit (the text minus its tags and
// the whitespace right after them), never holds more than a partial tag or a
// cut character, and never cuts a character of valid UTF-8.
func FuzzSplitter(f *testing.F) {
	for _, s := range []string{
		"<think>\nplan\n</think>\n\nanswer",
		"a<think>b</think>c<think>d</think>e",
		"Okay</think>Hi<think><think>x",
		"<thin<think</think<think>用户😀</think>你好",
		"a\xe4\xbd\xa0\xf0\x9f\x98\x80\xff<",
	} {
		f.Add([]byte(s), []byte{3, 1, 5}, false)
		f.Add([]byte(s), []byte{0, 2, 1, 1}, true)
	}
	f.Fuzz(func(t *testing.T, text, cuts []byte, assumeOpen bool) {
		s := NewSplitter(assumeOpen, 3)
		var runs []Run
		for _, piece := range cut(text, cuts) {
			got := s.Split(nil, piece)
			if s.npend > len(closeTag)-1 {
				t.Fatalf("holding %d bytes", s.npend)
			}
			runs = append(runs, merged(got)...)
		}
		runs = append(runs, merged(s.Flush(nil))...)
		if utf8.Valid(text) {
			for _, r := range runs {
				if !utf8.Valid(r.Text) {
					t.Fatalf("run %q cuts a character", r.Text)
				}
			}
		}
		got, want := merged(runs), referenceSplit(string(text), assumeOpen, 3)
		if runsString(got) != runsString(want) {
			t.Fatalf("cut by %v: %s\nreference: %s", cuts, runsString(got), runsString(want))
		}
	})
}

// FuzzSSERewrite checks that however a stream is cut into Writes the output
// is the same, that it is well formed (every data JSON, blocks numbered 0,
// 1, 2... in turn, each started block stopped, when the stream is cut short
// too), that each thinking block it reports is keyed as the response
// observer keys it, that its blocks hold the text of each text block of the
// input minus its tags, each thinking block signed, and that a stream whose
// text is untouched is copied byte for byte. The layout bits choose: R1
// mode, a tool call around the text, a second text block, CRLF or CR line
// endings, and a stream cut short.
func FuzzSSERewrite(f *testing.F) {
	for _, s := range []string{
		"<thi|nk>\nLet me |think é😀|</th|ink>\n\nAnswer",
		"plain |<b>| a < b|<|th|ank",
		"Okay|</think>|Hi",
		"<think>a</think>b<think>c</think>d",
		"<think>\n\n</think>\n\n",
		"|",
	} {
		f.Add(s, []byte{40, 7, 200}, uint8(0))
		f.Add(s, []byte{1, 1, 1}, uint8(7))
		f.Add(s, []byte{130, 3, 1}, uint8(8|32))
		f.Add(s, []byte{200, 0, 90}, uint8(16|4|2))
	}
	f.Fuzz(func(t *testing.T, text string, cuts []byte, layout uint8) {
		text = strings.ToValidUTF8(text, "\uFFFD")
		pieces := strings.Split(text, "|")
		o := Options{AssumeOpen: layout&1 != 0, Sign: testSign}
		texts := []string{strings.Join(pieces, "")}
		stream := messageStart
		if layout&2 != 0 {
			stream += toolUse(0) + textStream(1, pieces...) + toolUse(2)
		} else {
			stream += textStream(0, pieces...)
		}
		if layout&4 != 0 {
			slices := append([]string(nil), pieces...)
			for i, j := 0, len(slices)-1; i < j; i, j = i+1, j-1 {
				slices[i], slices[j] = slices[j], slices[i]
			}
			stream += textStream(strings.Count(stream, "content_block_start\n"), slices...)
			texts = append(texts, strings.Join(slices, ""))
		}
		stream += messageDelta + messageStop
		switch {
		case layout&8 != 0:
			stream = strings.ReplaceAll(stream, "\n", "\r\n")
		case layout&16 != 0:
			stream = strings.ReplaceAll(stream, "\n", "\r")
		}
		truncated := layout&32 != 0 && len(cuts) > 0
		if truncated {
			stream = stream[:len(stream)*int(cuts[0])/256]
		}

		whole, blocks := rewrite(t, o, []byte(stream))
		if chunked, _ := rewrite(t, o, cut([]byte(stream), cuts)...); chunked != whole {
			t.Fatalf("cut by %v:\n%s\nwhole:\n%s", cuts, chunked, whole)
		}
		got, _ := readStream(t, whole, truncated)
		checkKeys(t, whole, blocks)
		if truncated {
			return
		}
		var want []outBlock
		untouched := true
		for i, tx := range texts {
			open := o.AssumeOpen && i == 0 && layout&2 == 0
			blocks, same := expectedBlocks(tx, open)
			untouched = untouched && same
			if layout&2 != 0 && i == 0 {
				blocks = append(append([]outBlock{{Type: "tool_use"}}, blocks...), outBlock{Type: "tool_use"})
			}
			want = append(want, blocks...)
		}
		if len(got) != len(want) {
			t.Fatalf("%d blocks, want %d:\n%s", len(got), len(want), whole)
		}
		for i := range got {
			want[i].Index = i
			if got[i] != want[i] && !(want[i].Type == "tool_use" && got[i].Type == "tool_use") {
				t.Fatalf("block %d: %+v, want %+v", i, got[i], want[i])
			}
		}
		if untouched && whole != stream {
			t.Fatalf("untouched stream changed:\n%s", whole)
		}
	})
}

// expectedBlocks returns the blocks a text block with this text becomes,
// by referenceSplit, and whether it stays as it came.
func expectedBlocks(text string, assumeOpen bool) ([]outBlock, bool) {
	runs := referenceSplit(text, assumeOpen, maxSections)
	var joined []byte
	for _, r := range runs {
		joined = append(joined, r.Text...)
	}
	if !hasThinking(runs) && string(joined) == text {
		return []outBlock{{Type: "text", Text: text}}, true
	}
	var blocks []outBlock
	for _, r := range runs {
		b := outBlock{Type: "text", Text: string(r.Text)}
		if r.Thinking {
			b = outBlock{Type: "thinking", Text: string(r.Text), Signature: signature(string(r.Text))}
		}
		blocks = append(blocks, b)
	}
	return blocks, false
}

// cut splits p into chunks whose lengths are the bytes of cuts, in turn,
// then the rest. Zero-length chunks are kept: a Write of nothing must not
// change anything either.
func cut(p, cuts []byte) [][]byte {
	var chunks [][]byte
	for _, c := range cuts {
		n := min(int(c), len(p))
		chunks = append(chunks, p[:n])
		p = p[n:]
	}
	return append(chunks, p)
}
