package workload

import (
	"fmt"
	"strconv"
	"strings"
)

// maxReported bounds Error's message: past a few dozen problems a longer list
// stops helping anyone fix the file.
const maxReported = 20

// Issue is one problem found in a workload.
type Issue struct {
	// Line is the 1-based line in the source document, or 0 when unknown
	// (workloads built in code, or problems with the document as a whole).
	Line int
	// Path locates the value in the schema, e.g. "jobs[3].phases[0].tasks".
	// It is empty for syntax errors, which have no place in the schema.
	Path string
	Msg  string
}

// Error reports every problem found while reading or validating a workload,
// so that a user can fix a file in one pass rather than one error at a time.
type Error struct {
	Source string // file name or other label of the input; may be empty
	Issues []Issue
}

// Error formats one issue per line as "SOURCE:LINE: PATH: message", leaving
// out what is unknown, and truncates long lists.
func (e *Error) Error() string {
	var b strings.Builder
	for i, is := range e.Issues {
		if i == maxReported {
			fmt.Fprintf(&b, "\n... and %d more", len(e.Issues)-maxReported)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(is.format(e.Source))
	}
	return b.String()
}

// format renders the issue as one line, prefixed by source and line when the
// line is known.
func (is Issue) format(source string) string {
	var b strings.Builder
	if is.Line > 0 {
		if source != "" {
			b.WriteString(source)
			b.WriteByte(':')
		} else {
			b.WriteString("line ")
		}
		b.WriteString(strconv.Itoa(is.Line))
		b.WriteString(": ")
	} else if source != "" && is.Path == "" {
		b.WriteString(source)
		b.WriteString(": ")
	}
	if is.Path != "" {
		b.WriteString(is.Path)
		b.WriteString(": ")
	}
	b.WriteString(is.Msg)
	return b.String()
}

// seg is one step of a path: a mapping key, or a list index when key is "".
type seg struct {
	key string
	idx int
}

func formatPath(p []seg) string {
	var b strings.Builder
	for _, s := range p {
		if s.key == "" {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.idx))
			b.WriteByte(']')
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.key)
	}
	return b.String()
}

// parsePath is the inverse of formatPath. Keys of the schema never contain
// '.' or '[', so the split is unambiguous.
func parsePath(s string) []seg {
	var p []seg
	for s != "" {
		switch s[0] {
		case '.':
			s = s[1:]
		case '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return p
			}
			n, err := strconv.Atoi(s[1:end])
			if err != nil {
				return p
			}
			p = append(p, seg{idx: n})
			s = s[end+1:]
		default:
			end := strings.IndexAny(s, ".[")
			if end < 0 {
				end = len(s)
			}
			p = append(p, seg{key: s[:end]})
			s = s[end:]
		}
	}
	return p
}
