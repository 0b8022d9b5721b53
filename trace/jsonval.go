package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// jval is a JSON value that remembers the line it was on, so that a
// problem found while mapping a record can be reported as FILE:LINE.
type jval struct {
	line int
	kind byte   // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	text string // a string's value, a number's text, "true"/"false"
	keys []string
	vals []*jval // an object's members (with keys) or an array's elements
}

// get returns an object's member, or nil.
func (v *jval) get(key string) *jval {
	if v == nil || v.kind != 'o' {
		return nil
	}
	for i, k := range v.keys {
		if k == key {
			return v.vals[i]
		}
	}
	return nil
}

func (v *jval) describe() string {
	switch v.kind {
	case 'o':
		return "an object"
	case 'a':
		return "a list"
	case 's':
		return "a string"
	case 'n':
		return "a number"
	case 'b':
		return "a boolean"
	}
	return "null"
}

// lineCounter passes a reader through and remembers where its newlines
// are, so that decoder offsets can be turned into lines. Offsets are asked
// for in increasing order, so newlines before the last one asked for are
// counted and forgotten: memory stays bounded by the decoder's look-ahead.
type lineCounter struct {
	r      io.Reader
	off    int64
	nl     []int64
	before int
	last   byte // the last byte read
}

func (l *lineCounter) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	b := p[:n]
	for base := l.off; ; {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		l.nl = append(l.nl, base+int64(i))
		base += int64(i) + 1
		b = b[i+1:]
	}
	l.off += int64(n)
	if n > 0 {
		l.last = p[n-1]
	}
	return n, err
}

// lines returns how many lines have been read: the newlines, plus a last
// line without one.
func (l *lineCounter) lines() int {
	n := l.before + len(l.nl)
	if l.off > 0 && l.last != '\n' {
		n++
	}
	return n
}

// lineAt returns the 1-based line holding byte offset off.
func (l *lineCounter) lineAt(off int64) int {
	k := 0
	for k < len(l.nl) && l.nl[k] < off {
		k++
	}
	l.before += k
	l.nl = l.nl[k:]
	return l.before + 1
}

// jsonStream reads a sequence of JSON values (concatenated, as SLS and
// Rumen write them) one at a time.
type jsonStream struct {
	name string
	dec  *json.Decoder
	lc   *lineCounter
	c    *conv
}

func newJSONStream(c *conv, name string, r io.Reader) *jsonStream {
	lc := &lineCounter{r: r}
	dec := json.NewDecoder(lc)
	dec.UseNumber()
	return &jsonStream{name: name, dec: dec, lc: lc, c: c}
}

func (s *jsonStream) line() int { return s.lc.lineAt(s.dec.InputOffset()) }

// maxDepth bounds nesting, so that hostile input cannot exhaust the stack.
const maxDepth = 64

// next reads the next top-level value; ok is false at the end of input.
func (s *jsonStream) next() (*jval, bool, error) {
	if !s.dec.More() {
		// More is false at the end and at a stray closing bracket.
		if _, err := s.dec.Token(); err != io.EOF {
			return nil, false, s.syntax(err, "unexpected closing bracket")
		}
		return nil, false, nil
	}
	v, err := s.value(0)
	if err != nil {
		return nil, false, err
	}
	return v, true, nil
}

// syntax reports a syntax error at the decoder's position; syntax errors
// end the file, since nothing after them can be trusted.
func (s *jsonStream) syntax(err error, fallback string) error {
	msg := fallback
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		msg = se.Error()
		return &RecordError{File: s.name, Line: s.lc.lineAt(se.Offset), Msg: "JSON: " + msg}
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		msg = "unexpected end of input"
	case err != nil:
		msg = err.Error()
	}
	return &RecordError{File: s.name, Line: s.line(), Msg: "JSON: " + msg}
}

func (s *jsonStream) value(depth int) (*jval, error) {
	if depth > maxDepth {
		return nil, &RecordError{File: s.name, Line: s.line(), Msg: fmt.Sprintf("JSON nested deeper than %d", maxDepth)}
	}
	tok, err := s.dec.Token()
	if err != nil {
		return nil, s.syntax(err, "")
	}
	v := &jval{line: s.line()}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			v.kind = 'o'
			for s.dec.More() {
				kt, err := s.dec.Token()
				if err != nil {
					return nil, s.syntax(err, "")
				}
				k, _ := kt.(string)
				m, err := s.value(depth + 1)
				if err != nil {
					return nil, err
				}
				v.keys = append(v.keys, k)
				v.vals = append(v.vals, m)
			}
		case '[':
			v.kind = 'a'
			for s.dec.More() {
				e, err := s.value(depth + 1)
				if err != nil {
					return nil, err
				}
				v.vals = append(v.vals, e)
			}
		default:
			return nil, s.syntax(nil, fmt.Sprintf("unexpected %q", rune(t)))
		}
		if _, err := s.dec.Token(); err != nil { // the closing bracket
			return nil, s.syntax(err, "")
		}
	case string:
		v.kind, v.text = 's', t
	case json.Number:
		v.kind, v.text = 'n', string(t)
	case bool:
		v.kind, v.text = 'b', strconv.FormatBool(t)
	case nil:
		v.kind = 'z'
	}
	return v, nil
}

// Field readers for mapping records: each returns a message naming the
// key when the value is not what is wanted.

// jstr reads an optional string (numbers are taken as their text, as
// SLS's own reader does); "" when absent or null.
func jstr(o *jval, key string) (string, string) {
	v := o.get(key)
	if v == nil || v.kind == 'z' {
		return "", ""
	}
	if v.kind != 's' && v.kind != 'n' {
		return "", fmt.Sprintf("%s: want a string, got %s", key, v.describe())
	}
	return v.text, ""
}

// jint reads an optional integer, given as a number or a numeric string;
// ok is false when absent or null.
func jint(o *jval, key string) (n int64, ok bool, msg string) {
	v := o.get(key)
	if v == nil || v.kind == 'z' {
		return 0, false, ""
	}
	if v.kind != 'n' && v.kind != 's' {
		return 0, false, fmt.Sprintf("%s: want a whole number, got %s", key, v.describe())
	}
	n, good := parseInt([]byte(strings.TrimSpace(v.text)))
	if !good {
		return 0, false, fmt.Sprintf("%s: not a whole number: %q", key, v.text)
	}
	return n, true, ""
}
