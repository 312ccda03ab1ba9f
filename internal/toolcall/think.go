package toolcall

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
	if c := lower(s.text[min(i+1, len(s.text)-1)]); c != 't' && c != 's' && c != '/' {
		return 0, false // most '<' open nothing of the kind: decide on one byte
	}
	if end, ok := s.lonelyClose(i); ok {
		return end, true
	}
	for _, tag := range thinkTags {
		if hasPrefixFold(s.text[i:], tag.open) {
			s.thought = true
			k := s.find(tag.close, i)
			return min(len(s.text), k+len(tag.close)), true
		}
	}
	return 0, false
}

// lonelyClose handles a closing tag at text[i] with no block opened before it: the text
// began inside a thinking block whose opening tag was part of the prompt (DeepSeek-R1, QwQ
// and Qwen3 templates end the prompt with <think>). All before it was thinking, so what was
// read there is dropped.
func (s *scanner) lonelyClose(i int) (int, bool) {
	if s.thought {
		return 0, false
	}
	for _, tag := range thinkTags {
		if hasPrefixFold(s.text[i:], tag.close) {
			s.calls, s.cuts, s.units, s.partial, s.fence = nil, nil, nil, false, fence{}
			s.thought = true
			return i + len(tag.close), true
		}
	}
	return 0, false
}
