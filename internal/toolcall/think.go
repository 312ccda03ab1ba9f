package toolcall

import "strings"

// thinkTags are the blocks reasoning models muse in. A call written there is the model
// thinking aloud about what it might do, never a call; the block stays as text, as the
// agent shows it.
var thinkTags = [...]struct{ open, close string }{
	{"<think>", "</think>"},
	{"<seed:think>", "</seed:think>"}, // Seed-OSS
}

// think returns the end of the thinking block that opens at text[i], if one does. A block
// the text does not close runs to its end.
func (s *scanner) think(i int) (int, bool) {
	for _, tag := range thinkTags {
		if hasPrefixFold(s.text[i:], tag.open) {
			k := s.find(tag.close, i)
			return min(len(s.text), k+len(tag.close)), true
		}
	}
	return 0, false
}

// thoughtEnd is where the answer starts when the text begins inside a thinking block whose
// opening tag was part of the prompt (DeepSeek-R1, QwQ and Qwen3 templates end the prompt
// with <think>): a closing tag with no opening tag before it. Otherwise it is 0.
func thoughtEnd(text string) int {
	for _, tag := range thinkTags {
		if k := strings.Index(text, tag.close); k >= 0 && !strings.Contains(text[:k], tag.open) {
			return k + len(tag.close)
		}
	}
	return 0
}
