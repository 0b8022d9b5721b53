package trace

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/spindle-sched/spindle/clock"
)

// source is one input file: its name for messages and a way to open it.
type source struct {
	name string
	open func() (io.ReadCloser, error)
}

func fileSource(path string) source {
	return source{name: path, open: func() (io.ReadCloser, error) { return os.Open(path) }}
}

func bytesSource(name string, data []byte) source {
	return source{name: name, open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
}

// expandInputs turns paths into sources. A directory stands for its part-*
// shards (the layout of the Google trace), in name order, which is time
// order there.
func expandInputs(paths []string) ([]source, error) {
	var out []source
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("trace input: %w", err)
		}
		if !st.IsDir() {
			out = append(out, fileSource(p))
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, fmt.Errorf("trace input: %w", err)
		}
		var names []string
		for _, e := range ents {
			if !e.IsDir() && strings.HasPrefix(e.Name(), "part-") {
				names = append(names, e.Name())
			}
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("trace input %s: a directory must hold part-* shards, and this one has none", p)
		}
		sort.Strings(names)
		for _, n := range names {
			out = append(out, fileSource(filepath.Join(p, n)))
		}
	}
	return out, nil
}

// maxLine bounds one line, so that a binary or corrupt file cannot make the
// reader buffer without limit.
const maxLine = 1 << 20

// lineReader reads an input line by line, transparently gunzipping it, and
// counts lines for messages.
type lineReader struct {
	name  string
	line  int
	br    *bufio.Reader
	long  []byte
	close func() error
	c     *conv
}

// openLines opens a source; gzip is recognised by its magic bytes, whatever
// the file is called.
// eachRecord reads a CSV table of a trace: every line that is not empty or a
// '#' comment is a record, split into fields (into *fields, reused) and
// checked to have want of them; record handles it and returns what is wrong
// with it, or "". Problems are reported as FILE:LINE through c.bad, which
// stops the conversion unless bad records are to be skipped.
func (c *conv) eachRecord(s source, fields *[][]byte, want int, table string, record func(fs [][]byte, line int) string) error {
	lr, err := c.openLines(s)
	if err != nil {
		return err
	}
	defer lr.close()
	for {
		line, ok, err := lr.next()
		if err != nil || !ok {
			return err
		}
		// The published traces have no header; samples often carry one.
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		c.rep.Records++
		*fields, err = splitCSV(*fields, line)
		var msg string
		switch {
		case err != nil:
			msg = err.Error()
		case len(*fields) != want:
			msg = fmt.Sprintf("wrong field count for %s: got %d, want %d", table, len(*fields), want)
		default:
			msg = record(*fields, lr.line)
		}
		if msg != "" {
			if err := c.bad(lr.name, lr.line, "%s", msg); err != nil {
				return err
			}
		}
	}
}

func (c *conv) openLines(s source) (*lineReader, error) {
	rc, err := s.open()
	if err != nil {
		return nil, fmt.Errorf("trace input: %w", err)
	}
	r, err := decompress(rc)
	if err != nil {
		rc.Close()
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	return &lineReader{name: s.name, br: r, close: rc.Close, c: c}, nil
}

// bufSize is the read buffer of an input; larger buffers read no faster.
const bufSize = 64 << 10

// decompress returns a buffered reader of r's contents, gunzipped when they
// start with the gzip magic number.
func decompress(r io.Reader) (*bufio.Reader, error) {
	br := bufio.NewReaderSize(r, bufSize)
	magic, _ := br.Peek(2)
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		return bufio.NewReaderSize(zr, bufSize), nil
	}
	return br, nil
}

// next returns the next line without its line ending; ok is false at the
// end. The slice is valid until the next call.
func (l *lineReader) next() (line []byte, ok bool, err error) {
	b, err := l.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		l.long = append(l.long[:0], b...)
		for err == bufio.ErrBufferFull && len(l.long) <= maxLine {
			b, err = l.br.ReadSlice('\n')
			l.long = append(l.long, b...)
		}
		if len(l.long) > maxLine {
			return nil, false, &RecordError{File: l.name, Line: l.line + 1, Msg: fmt.Sprintf("line longer than %d bytes", maxLine)}
		}
		b = l.long
	}
	if err != nil && err != io.EOF {
		return nil, false, &RecordError{File: l.name, Line: l.line + 1, Msg: "read: " + err.Error()}
	}
	if len(b) == 0 && err == io.EOF {
		return nil, false, nil
	}
	l.line++
	l.c.rep.Lines++
	b = bytes.TrimSuffix(b, []byte{'\n'})
	b = bytes.TrimSuffix(b, []byte{'\r'})
	return b, true, nil
}

// splitCSV splits an unquoted comma-separated line into fields, reusing
// dst. The traces here never quote, so the fast path is a byte scan; a line
// with a quote goes through encoding/csv to be read correctly anyway.
func splitCSV(dst [][]byte, line []byte) ([][]byte, error) {
	dst = dst[:0]
	if bytes.IndexByte(line, '"') >= 0 {
		r := csv.NewReader(bytes.NewReader(line))
		r.FieldsPerRecord = -1
		rec, err := r.Read()
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return dst, fmt.Errorf("bad quoting: %v", err)
		}
		for _, f := range rec {
			dst = append(dst, []byte(f))
		}
		return dst, nil
	}
	for {
		i := bytes.IndexByte(line, ',')
		if i < 0 {
			return append(dst, line), nil
		}
		dst = append(dst, line[:i])
		line = line[i+1:]
	}
}

// splitSpace splits a line on runs of blanks, reusing dst.
func splitSpace(dst [][]byte, line []byte) [][]byte {
	dst = dst[:0]
	i := 0
	for i < len(line) {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		start := i
		for i < len(line) && line[i] != ' ' && line[i] != '\t' {
			i++
		}
		if i > start {
			dst = append(dst, line[start:i])
		}
	}
	return dst
}

// parseInt reads a decimal integer.
func parseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	neg := false
	i := 0
	if b[0] == '-' || b[0] == '+' {
		neg = b[0] == '-'
		i = 1
		if len(b) == 1 {
			return 0, false
		}
	}
	var v uint64
	for ; i < len(b); i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (math.MaxInt64-uint64(c-'0'))/10 {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	if neg {
		return -int64(v), true
	}
	return int64(v), true
}

// parseNum reads a finite decimal number (integer, fraction or exponent).
func parseNum(b []byte) (float64, bool) {
	if v, ok := parseInt(b); ok {
		return float64(v), true
	}
	if len(b) == 0 || len(b) > 64 {
		return 0, false
	}
	// strconv accepts forms a trace never means ("inf", "0x1p3", "1_000").
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E') {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// maxTime bounds every time a trace may give, the workload format's limit.
const maxTime = clock.Duration(1 << 62)

// parseTime reads a number of units (clock.Second, clock.Millisecond,
// clock.Microsecond) as a Duration, exactly for integers and rounded to the
// microsecond otherwise. ok is false for text that is not a number or a
// value out of range.
func parseTime(b []byte, unit clock.Duration) (clock.Duration, bool) {
	if v, ok := parseInt(b); ok {
		if v > int64(maxTime/unit) || v < -int64(maxTime/unit) {
			return 0, false
		}
		return clock.Duration(v) * unit, true
	}
	f, ok := parseNum(b)
	if !ok {
		return 0, false
	}
	us := math.Round(f * float64(unit))
	if us > float64(maxTime) || us < -float64(maxTime) {
		return 0, false
	}
	return clock.Duration(us), true
}

// quote shows a field in a message, shortened when long.
func quote(b []byte) string {
	if len(b) > 40 {
		return strconv.Quote(string(b[:40])) + "..."
	}
	return strconv.Quote(string(b))
}
