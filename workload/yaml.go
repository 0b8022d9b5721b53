package workload

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// parseYAML parses a single-document YAML stream into its root node.
// The parser is third-party code; a panic inside it becomes an error so that
// Parse never panics whatever the input.
func parseYAML(data []byte) (root *yaml.Node, fail *Issue) {
	defer func() {
		if r := recover(); r != nil {
			root, fail = nil, &Issue{Line: 1, Msg: fmt.Sprintf("YAML parser failed: %v", r)}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Issue{Line: 1, Msg: "document is empty"}
		}
		return nil, yamlIssue(err)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, yamlIssue(err)
	default:
		return nil, &Issue{Line: extra.Line, Msg: "more than one YAML document (only one is allowed)"}
	}
	root = &doc
	if doc.Kind == yaml.DocumentNode {
		if len(doc.Content) != 1 {
			return nil, &Issue{Line: 1, Msg: "document is empty"}
		}
		root = doc.Content[0]
	}
	return root, nil
}

// yamlIssue turns the parser's "yaml: line N: msg" into an issue with a line.
func yamlIssue(err error) *Issue {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 1
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if i := strings.Index(rest, ": "); i > 0 {
			if n, err := strconv.Atoi(rest[:i]); err == nil {
				line, msg = n, rest[i+2:]
			}
		}
	}
	return &Issue{Line: line, Msg: msg}
}

// yamlSource walks a yaml.Node tree as a puller.
//
// Aliases are followed, so anchors can share a request or a list of
// durations between jobs. Each expansion is charged by the size of what it
// expands to against a budget proportional to the document, which keeps
// "billion laughs" documents (and anchors that contain themselves) from
// costing more than a small multiple of their own size.
type yamlSource struct {
	next  *yaml.Node // value to be consumed next, aliases resolved
	line  int        // line of next as written (the alias, not its anchor)
	stack []yamlFrame
	fail  *Issue
	buf   []byte

	budget int // remaining alias expansion, in nodes; set on first use
	sizes  map[*yaml.Node]int
	root   *yaml.Node
}

type yamlFrame struct {
	n *yaml.Node
	i int
}

const (
	sizeInProgress = -1
	// aliasBase and aliasFactor set the alias budget: aliasBase nodes plus
	// aliasFactor times the document's own node count.
	aliasBase   = 100_000
	aliasFactor = 10
)

func newYAMLSource(root *yaml.Node) *yamlSource {
	s := &yamlSource{root: root, budget: -1}
	s.setNext(root)
	return s
}

func (s *yamlSource) failure() *Issue { return s.fail }

func (s *yamlSource) failf(line int, format string, args ...any) {
	if s.fail == nil {
		s.fail = &Issue{Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	s.next = nil
	s.stack = s.stack[:0]
}

func (s *yamlSource) setNext(n *yaml.Node) {
	s.next, s.line = n, n.Line
	if n.Kind != yaml.AliasNode {
		return
	}
	target := n.Alias
	if target == nil {
		s.failf(n.Line, "unknown alias *%s", n.Value)
		return
	}
	if s.budget < 0 {
		s.sizes = map[*yaml.Node]int{}
		s.budget = aliasBase + aliasFactor*countNodes(s.root)
	}
	size := s.size(target)
	if size < 0 {
		s.failf(n.Line, "alias *%s refers to a value that contains itself", n.Value)
		return
	}
	s.budget -= size
	if s.budget < 0 {
		s.failf(n.Line, "aliases expand to too much data (at *%s)", n.Value)
		return
	}
	s.next = target
}

// countNodes counts the nodes of the tree without following aliases.
func countNodes(n *yaml.Node) int {
	c := 1
	for _, ch := range n.Content {
		c += countNodes(ch)
	}
	return c
}

// size returns the number of nodes n expands to, following aliases, or -1
// when n contains itself. The result saturates well above any budget.
func (s *yamlSource) size(n *yaml.Node) int {
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return 1
		}
		n = n.Alias
	}
	if c, ok := s.sizes[n]; ok {
		return c // sizeInProgress when n is an ancestor of itself
	}
	s.sizes[n] = sizeInProgress
	c := 1
	for _, ch := range n.Content {
		cs := s.size(ch)
		if cs < 0 {
			return -1
		}
		c = min(c+cs, math.MaxInt32)
	}
	s.sizes[n] = c
	return c
}

func (s *yamlSource) peek() (kind, int) {
	n := s.next
	if s.fail != nil || n == nil {
		return kindInvalid, s.line
	}
	switch n.Kind {
	case yaml.MappingNode:
		if n.Tag == "!!map" {
			return kindObject, s.line
		}
	case yaml.SequenceNode:
		if n.Tag == "!!seq" {
			return kindArray, s.line
		}
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return kindNull, s.line
		case "!!bool":
			return kindBool, s.line
		case "!!int", "!!float":
			return kindNumber, s.line
		case "!!str", "!!timestamp", "!!merge":
			return kindString, s.line
		}
	default:
		s.failf(s.line, "unexpected YAML node")
		return kindInvalid, s.line
	}
	s.failf(s.line, "unsupported YAML tag %s", n.Tag)
	return kindInvalid, s.line
}

func (s *yamlSource) text() []byte {
	k, _ := s.peek()
	n := s.next
	s.next = nil
	switch k {
	case kindNumber:
		return s.number(n)
	case kindNull, kindBool, kindString:
		s.buf = append(s.buf[:0], n.Value...)
		return s.buf
	}
	return nil
}

// number renders a YAML number in JSON syntax, so that the schema decoder
// parses every number the same way. Decimal numbers pass through unchanged,
// keeping their exact digits; other YAML spellings (0x1F, 1_000, .5, +3,
// .inf) go through the YAML library's own conversion.
func (s *yamlSource) number(n *yaml.Node) []byte {
	if isJSONNumber(n.Value) {
		s.buf = append(s.buf[:0], n.Value...)
		return s.buf
	}
	if n.Tag == "!!int" {
		// Decoding a float into an integer would truncate it, hence the
		// integer conversions only for integers.
		var i int64
		if decodeNode(n, &i) == nil {
			s.buf = strconv.AppendInt(s.buf[:0], i, 10)
			return s.buf
		}
		var u uint64
		if decodeNode(n, &u) == nil {
			s.buf = strconv.AppendUint(s.buf[:0], u, 10)
			return s.buf
		}
	}
	var f float64
	if err := decodeNode(n, &f); err != nil {
		s.failf(s.line, "invalid number %q", n.Value)
		return nil
	}
	switch {
	case math.IsNaN(f):
		s.buf = append(s.buf[:0], "NaN"...)
	case math.IsInf(f, 1):
		s.buf = append(s.buf[:0], "Inf"...)
	case math.IsInf(f, -1):
		s.buf = append(s.buf[:0], "-Inf"...)
	default:
		s.buf = strconv.AppendFloat(s.buf[:0], f, 'g', -1, 64)
	}
	return s.buf
}

func (s *yamlSource) beginObject() {
	if k, _ := s.peek(); k == kindObject {
		s.stack = append(s.stack, yamlFrame{n: s.next})
		s.next = nil
	}
}

func (s *yamlSource) beginArray() {
	if k, _ := s.peek(); k == kindArray {
		s.stack = append(s.stack, yamlFrame{n: s.next})
		s.next = nil
	}
}

func (s *yamlSource) key() ([]byte, int, bool) {
	if s.fail != nil || len(s.stack) == 0 {
		return nil, s.line, false
	}
	f := &s.stack[len(s.stack)-1]
	if f.n.Kind != yaml.MappingNode {
		return nil, s.line, false
	}
	if f.i+1 >= len(f.n.Content) {
		s.stack = s.stack[:len(s.stack)-1]
		return nil, s.line, false
	}
	k, v := f.n.Content[f.i], f.n.Content[f.i+1]
	f.i += 2
	if k.Kind != yaml.ScalarNode {
		s.failf(k.Line, "mapping keys must be plain strings")
		return nil, k.Line, false
	}
	if k.Tag == "!!merge" {
		s.failf(k.Line, "merge keys (<<) are not supported")
		return nil, k.Line, false
	}
	s.setNext(v)
	if s.fail != nil {
		return nil, k.Line, false
	}
	s.buf = append(s.buf[:0], k.Value...)
	return s.buf, k.Line, true
}

func (s *yamlSource) elem() bool {
	if s.fail != nil || len(s.stack) == 0 {
		return false
	}
	f := &s.stack[len(s.stack)-1]
	if f.n.Kind != yaml.SequenceNode {
		return false
	}
	if f.i >= len(f.n.Content) {
		s.stack = s.stack[:len(s.stack)-1]
		return false
	}
	v := f.n.Content[f.i]
	f.i++
	s.setNext(v)
	return s.fail == nil
}

func (s *yamlSource) skip() { s.next = nil }

func (s *yamlSource) finish() {}

// decodeNode is n.Decode with the library's panics turned into errors.
func decodeNode(n *yaml.Node, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return n.Decode(v)
}

// isJSONNumber reports whether v is a number in JSON syntax.
func isJSONNumber(v string) bool {
	i := 0
	if i < len(v) && v[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(v) && v[i] >= '0' && v[i] <= '9' {
			i++
		}
		return i - j
	}
	switch {
	case i < len(v) && v[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(v) && v[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(v) && (v[i] == 'e' || v[i] == 'E') {
		i++
		if i < len(v) && (v[i] == '+' || v[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(v)
}
