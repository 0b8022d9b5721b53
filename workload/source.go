package workload

// kind is the type of the next value in a document.
type kind uint8

const (
	kindInvalid kind = iota // the document is malformed; see puller.failure
	kindNull
	kindBool
	kindNumber
	kindString
	kindObject
	kindArray
)

func (k kind) String() string {
	switch k {
	case kindNull:
		return "null"
	case kindBool:
		return "a boolean"
	case kindNumber:
		return "a number"
	case kindString:
		return "a string"
	case kindObject:
		return "a mapping"
	case kindArray:
		return "a list"
	}
	return "invalid"
}

// puller is a pull interface over a parsed document, implemented by the JSON
// parser and by the YAML node walker, so that the schema is decoded by one
// piece of code whatever the format. A document is read value by value: peek
// at the next value, then consume it with text, beginObject, beginArray or
// skip.
//
// Malformed input makes a puller fail: peek then returns kindInvalid, key and
// elem return false, and failure describes the problem.
type puller interface {
	// peek returns the kind of the next value and the line where it starts.
	peek() (kind, int)
	// text consumes a scalar and returns its text: a string's unescaped
	// contents, a number in JSON syntax (or "NaN", "Inf", "-Inf"), "true" or
	// "false" for booleans. The slice is valid until the next call.
	text() []byte
	// beginObject consumes the start of a mapping.
	beginObject()
	// key returns the next key of the current mapping and its line, leaving
	// its value next; at the end of the mapping it returns false. The slice
	// is valid until the next call.
	key() ([]byte, int, bool)
	// beginArray consumes the start of a list.
	beginArray()
	// elem reports whether the current list has another element, leaving it
	// next.
	elem() bool
	// skip consumes the next value, whatever it is.
	skip()
	// finish checks that nothing follows the top-level value.
	finish()
	// failure returns the first syntax error, or nil.
	failure() *Issue
}

// pathTrie holds the paths whose lines are wanted, so that they can all be
// looked up in one pass over the document.
type pathTrie struct {
	keys map[string]*pathTrie
	idxs map[int]*pathTrie
	line int // where the value (or its key) was found; 0 if not reached
}

func (t *pathTrie) child(s seg) *pathTrie {
	if s.key != "" {
		if t.keys == nil {
			t.keys = map[string]*pathTrie{}
		}
		c := t.keys[s.key]
		if c == nil {
			c = &pathTrie{}
			t.keys[s.key] = c
		}
		return c
	}
	if t.idxs == nil {
		t.idxs = map[int]*pathTrie{}
	}
	c := t.idxs[s.idx]
	if c == nil {
		c = &pathTrie{}
		t.idxs[s.idx] = c
	}
	return c
}

// resolveLines fills in the line of each issue from the document by
// following its path; a path that leads nowhere (a defaulted field, say) gets
// the line of the nearest ancestor present. Issues are only ever found after
// decoding, on a cold path, so one more pass over the document is cheap
// compared with keeping a line for every value of every job.
func resolveLines(src puller, issues []Issue) {
	root := &pathTrie{}
	for i := range issues {
		t := root
		for _, s := range parsePath(issues[i].Path) {
			t = t.child(s)
		}
	}
	_, line := src.peek()
	root.line = line
	walkLines(src, root)
	for i := range issues {
		t := root
		line := root.line
		for _, s := range parsePath(issues[i].Path) {
			t = t.child(s)
			if t.line == 0 {
				break
			}
			line = t.line
		}
		issues[i].Line = line
	}
}

// walkLines records, for each node of t, the line of the matching value. The
// first occurrence of a key wins, as in decoding.
func walkLines(src puller, t *pathTrie) {
	k, _ := src.peek()
	switch {
	case k == kindObject && t.keys != nil:
		src.beginObject()
		for {
			key, line, ok := src.key()
			if !ok {
				return
			}
			c := t.keys[string(key)]
			if c == nil || c.line != 0 {
				src.skip()
				continue
			}
			c.line = line
			walkLines(src, c)
		}
	case k == kindArray && t.idxs != nil:
		src.beginArray()
		for i := 0; src.elem(); i++ {
			c := t.idxs[i]
			if c == nil {
				src.skip()
				continue
			}
			_, c.line = src.peek()
			walkLines(src, c)
		}
	default:
		src.skip()
	}
}
