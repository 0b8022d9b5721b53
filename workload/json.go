package workload

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// maxDepth bounds nesting so that hostile input cannot exhaust the stack
// while being skipped; the schema itself needs fewer than ten levels.
const maxDepth = 64

// jsonSource is a strict, non-allocating pull parser over a JSON document.
// Values are decoded straight into the workload structs by the schema
// decoder, so no tree of the document is ever built.
//
// It reads either a document held in memory or a stream: then data is a
// window of the input that grows while a token is scanned and drops what
// was consumed between tokens, so a file of millions of tasks never sits in
// memory beside the workload decoded from it.
type jsonSource struct {
	data []byte
	pos  int
	line int
	r    io.Reader // nil: data is the whole document
	rerr error     // the first read error, reported as a syntax failure
	// stack holds one entry per open container: whether it is a mapping,
	// and whether it has yielded no element yet.
	stack []frameState
	fail  *Issue
	buf   []byte // unescaped string contents
}

type frameState struct {
	object bool
	first  bool
}

func newJSONSource(data []byte) *jsonSource {
	return &jsonSource{data: data, line: 1, stack: make([]frameState, 0, 16)}
}

// streamChunk is how much a streaming source reads at a time.
const streamChunk = 256 << 10

// newJSONStream parses the document read from r, starting with the bytes
// already read in head, whose array it takes over.
func newJSONStream(head []byte, r io.Reader) *jsonSource {
	data := head
	if cap(data) < streamChunk {
		data = make([]byte, len(head), streamChunk)
		copy(data, head)
	}
	return &jsonSource{data: data, r: r, line: 1, stack: make([]frameState, 0, 16)}
}

// has reports whether data[i] exists, reading more of a stream as needed.
// Reading appends to data and never moves what is in it, so indices (not
// slices) stay valid across the call.
func (s *jsonSource) has(i int) bool { return i < len(s.data) || s.more(i) }

func (s *jsonSource) more(i int) bool {
	for i >= len(s.data) {
		if s.r == nil {
			return false
		}
		if len(s.data) == cap(s.data) {
			s.data = append(s.data[:cap(s.data)], make([]byte, cap(s.data))...)[:len(s.data)]
		}
		n, err := s.r.Read(s.data[len(s.data):cap(s.data)])
		s.data = s.data[:len(s.data)+n]
		if err != nil {
			if err != io.EOF && s.rerr == nil {
				s.rerr = err
			}
			s.r = nil
		}
	}
	return true
}

// drop forgets the consumed part of a stream's window. It runs only where
// a token starts, so that no slice handed out by text or key is still in
// use (they are valid until the next call).
func (s *jsonSource) drop() {
	if s.r != nil && s.pos >= streamChunk {
		n := copy(s.data, s.data[s.pos:])
		s.data = s.data[:n]
		s.pos = 0
	}
}

func (s *jsonSource) failure() *Issue {
	if s.fail == nil && s.rerr != nil {
		return &Issue{Line: s.line, Msg: fmt.Sprintf("reading: %v", s.rerr)}
	}
	return s.fail
}

func (s *jsonSource) errorf(format string, args ...any) {
	if s.fail == nil {
		s.fail = &Issue{Line: s.line, Msg: fmt.Sprintf(format, args...)}
	}
	// Jump to the end so that every later call sees the failure at once.
	s.r = nil
	s.pos = len(s.data)
}

func (s *jsonSource) skipSpace() {
	for s.has(s.pos) {
		switch s.data[s.pos] {
		case '\n':
			s.line++
		case ' ', '\t', '\r':
		default:
			return
		}
		s.pos++
	}
}

// describe names the byte at s.pos for an error message.
func (s *jsonSource) describe() string {
	if !s.has(s.pos) {
		return "end of input"
	}
	s.has(s.pos + utf8.UTFMax - 1)
	r, _ := utf8.DecodeRune(s.data[s.pos:])
	return fmt.Sprintf("%q", r)
}

func (s *jsonSource) peek() (kind, int) {
	if s.fail != nil {
		return kindInvalid, s.line
	}
	s.drop()
	s.skipSpace()
	if !s.has(s.pos) {
		s.errorf("unexpected end of input")
		return kindInvalid, s.line
	}
	switch c := s.data[s.pos]; c {
	case '{':
		return kindObject, s.line
	case '[':
		return kindArray, s.line
	case '"':
		return kindString, s.line
	case 't', 'f':
		return kindBool, s.line
	case 'n':
		return kindNull, s.line
	default:
		if c == '-' || c >= '0' && c <= '9' {
			return kindNumber, s.line
		}
	}
	s.errorf("invalid character %s looking for the beginning of a value", s.describe())
	return kindInvalid, s.line
}

func (s *jsonSource) text() []byte {
	k, _ := s.peek()
	switch k {
	case kindString:
		return s.str()
	case kindNumber:
		return s.number()
	case kindBool:
		if s.literal("true") {
			return s.data[s.pos-4 : s.pos]
		}
		if s.literal("false") {
			return s.data[s.pos-5 : s.pos]
		}
	case kindNull:
		if s.literal("null") {
			return s.data[s.pos-4 : s.pos]
		}
	default:
		return nil
	}
	s.errorf("invalid literal (want true, false or null)")
	return nil
}

func (s *jsonSource) literal(lit string) bool {
	if !s.has(s.pos+len(lit)-1) || string(s.data[s.pos:s.pos+len(lit)]) != lit {
		return false
	}
	end := s.pos + len(lit)
	if s.has(end) && isIdentByte(s.data[end]) {
		return false
	}
	s.pos = end
	return true
}

func isIdentByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// number consumes a number, checking the JSON grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *jsonSource) number() []byte {
	start, i := s.pos, s.pos
	if s.has(i) && s.data[i] == '-' {
		i++
	}
	switch {
	case s.has(i) && s.data[i] == '0':
		i++
	case s.has(i) && s.data[i] >= '1' && s.data[i] <= '9':
		for s.has(i) && s.data[i] >= '0' && s.data[i] <= '9' {
			i++
		}
	default:
		s.pos = i
		s.errorf("invalid number: want a digit, got %s", s.describe())
		return nil
	}
	if s.has(i) && s.data[i] == '.' {
		i++
		j := i
		for s.has(i) && s.data[i] >= '0' && s.data[i] <= '9' {
			i++
		}
		if i == j {
			s.pos = i
			s.errorf("invalid number: want a digit after the decimal point, got %s", s.describe())
			return nil
		}
	}
	if s.has(i) && (s.data[i] == 'e' || s.data[i] == 'E') {
		i++
		if s.has(i) && (s.data[i] == '+' || s.data[i] == '-') {
			i++
		}
		j := i
		for s.has(i) && s.data[i] >= '0' && s.data[i] <= '9' {
			i++
		}
		if i == j {
			s.pos = i
			s.errorf("invalid number: want a digit in the exponent, got %s", s.describe())
			return nil
		}
	}
	s.pos = i
	return s.data[start:i]
}

// str consumes a string. Without escapes it returns a slice of the input;
// otherwise the unescaped text in s.buf.
func (s *jsonSource) str() []byte {
	i := s.pos + 1
	start := i
	// Fast path: plain ASCII without escapes.
	for s.has(i) {
		c := s.data[i]
		if c == '"' {
			s.pos = i + 1
			return s.data[start:i]
		}
		if c < 0x20 || c == '\\' || c >= utf8.RuneSelf {
			break
		}
		i++
	}
	s.buf = append(s.buf[:0], s.data[start:i]...)
	for {
		if !s.has(i) {
			s.pos = i
			s.errorf("unterminated string")
			return nil
		}
		c := s.data[i]
		switch {
		case c == '"':
			s.pos = i + 1
			return s.buf
		case c < 0x20:
			s.pos = i
			s.errorf("invalid control character %s in string (escape it)", s.describe())
			return nil
		case c == '\\':
			i = s.escape(i)
			if i < 0 {
				return nil
			}
		case c < utf8.RuneSelf:
			s.buf = append(s.buf, c)
			i++
		default:
			s.has(i + utf8.UTFMax - 1)
			r, n := utf8.DecodeRune(s.data[i:])
			if r == utf8.RuneError && n == 1 {
				s.pos = i
				s.errorf("invalid UTF-8 in string")
				return nil
			}
			s.buf = append(s.buf, s.data[i:i+n]...)
			i += n
		}
	}
}

// escape decodes the escape sequence at s.data[i] == '\\' into s.buf and returns
// the index after it, or -1 after reporting an error.
func (s *jsonSource) escape(i int) int {
	if !s.has(i + 1) {
		s.pos = i
		s.errorf("unterminated string")
		return -1
	}
	var c byte
	switch s.data[i+1] {
	case '"':
		c = '"'
	case '\\':
		c = '\\'
	case '/':
		c = '/'
	case 'b':
		c = '\b'
	case 'f':
		c = '\f'
	case 'n':
		c = '\n'
	case 'r':
		c = '\r'
	case 't':
		c = '\t'
	case 'u':
		s.has(i + 5)
		r, ok := hex4(s.data, i+2)
		if !ok {
			s.pos = i
			s.errorf(`invalid \u escape (want four hex digits)`)
			return -1
		}
		i += 6
		switch {
		case r >= 0xD800 && r < 0xDC00:
			lo, ok := rune(0), false
			if s.has(i+1) && s.data[i] == '\\' && s.data[i+1] == 'u' {
				s.has(i + 5)
				lo, ok = hex4(s.data, i+2)
			}
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				s.pos = i
				s.errorf(`invalid \u escape: high surrogate \u%04X not followed by a low surrogate`, r)
				return -1
			}
			r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
			i += 6
		case r >= 0xDC00 && r <= 0xDFFF:
			s.pos = i
			s.errorf(`invalid \u escape: unpaired low surrogate \u%04X`, r)
			return -1
		}
		s.buf = utf8.AppendRune(s.buf, r)
		return i
	default:
		s.pos = i
		s.errorf(`invalid escape sequence \%s in string`, describeByte(s.data[i+1]))
		return -1
	}
	s.buf = append(s.buf, c)
	return i + 2
}

func describeByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return string(rune(c))
	}
	return fmt.Sprintf("\\x%02x", c)
}

func hex4(d []byte, i int) (rune, bool) {
	if len(d)-i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

func (s *jsonSource) push(object bool) {
	if len(s.stack) >= maxDepth {
		s.errorf("nesting deeper than %d levels", maxDepth)
		return
	}
	s.stack = append(s.stack, frameState{object: object, first: true})
	s.pos++
}

func (s *jsonSource) beginObject() {
	if k, _ := s.peek(); k == kindObject {
		s.push(true)
	}
}

func (s *jsonSource) beginArray() {
	if k, _ := s.peek(); k == kindArray {
		s.push(false)
	}
}

// next advances past the separator before the next element of the innermost
// container, or past its end, reporting whether an element follows.
func (s *jsonSource) next(object bool) bool {
	if s.fail != nil || len(s.stack) == 0 || s.stack[len(s.stack)-1].object != object {
		return false
	}
	closer, what := byte(']'), "list element"
	if object {
		closer, what = '}', "mapping value"
	}
	top := &s.stack[len(s.stack)-1]
	s.drop()
	s.skipSpace()
	if !s.has(s.pos) {
		s.errorf("unexpected end of input")
		return false
	}
	c := s.data[s.pos]
	if c == closer {
		s.pos++
		s.stack = s.stack[:len(s.stack)-1]
		return false
	}
	if top.first {
		top.first = false
		return true
	}
	if c != ',' {
		s.errorf("invalid character %s after %s (want ',' or '%c')", s.describe(), what, closer)
		return false
	}
	s.pos++
	s.skipSpace()
	if s.has(s.pos) && s.data[s.pos] == closer {
		s.errorf("trailing comma before '%c'", closer)
		return false
	}
	return true
}

func (s *jsonSource) key() ([]byte, int, bool) {
	if !s.next(true) {
		return nil, s.line, false
	}
	s.skipSpace()
	if !s.has(s.pos) || s.data[s.pos] != '"' {
		s.errorf("invalid character %s looking for a key (keys are double-quoted strings)", s.describe())
		return nil, s.line, false
	}
	line := s.line
	k := s.str()
	if s.fail != nil {
		return nil, line, false
	}
	s.skipSpace()
	if !s.has(s.pos) || s.data[s.pos] != ':' {
		s.errorf("invalid character %s after key (want ':')", s.describe())
		return nil, line, false
	}
	s.pos++
	return k, line, true
}

func (s *jsonSource) elem() bool { return s.next(false) }

func (s *jsonSource) skip() {
	switch k, _ := s.peek(); k {
	case kindObject:
		s.beginObject()
		for {
			if _, _, ok := s.key(); !ok {
				return
			}
			s.skip()
		}
	case kindArray:
		s.beginArray()
		for s.elem() {
			s.skip()
		}
	case kindInvalid:
	default:
		s.text()
	}
}

func (s *jsonSource) finish() {
	if s.fail != nil {
		return
	}
	s.skipSpace()
	if s.has(s.pos) {
		s.errorf("invalid character %s after the top-level value", s.describe())
	}
}
