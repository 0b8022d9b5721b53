package record

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// This file reads the objects of one snapshot file, whatever tool wrote
// it: kubectl's JSON and YAML (a List whose items carry their kind),
// `kubectl cluster-info dump`, the raw API and the kubelet's /pods (a
// PodList whose items carry none), must-gather (YAML, often one object a
// file), a conformance tool's plain JSON arrays, `kubectl get -w -o json`
// and NDJSON (a stream of values), with or without a byte-order mark,
// UTF-16 as Windows PowerShell writes it, and gzip. Each object's kind is
// its own, else its list's (PodList, NodeList, EventList), else what its
// shape says.

// object is one object read from a snapshot file.
type object struct {
	kind string // Pod, Node, Event, another kind, or "" when nothing tells
	// uid and version are the object's metadata.uid and resourceVersion,
	// read with its kind.
	uid, version string
	raw          []byte // its JSON
	where        string // where it is in the file: "items[3]", "value 2: items[0]", "document 2", ...
}

// listKinds maps a typed list's kind to its items'.
var listKinds = map[string]string{"PodList": "Pod", "NodeList": "Node", "EventList": "Event", "PodGroupList": "PodGroup"}

// objectReader reads the objects of one input.
type objectReader struct {
	in Input
	fn func(*object) error
	// noKind skips deciding each object's kind (a second pass that
	// knows it from the first).
	noKind bool
}

// eachObject calls fn for every object of the input, in file order. An
// error from fn stops the reading and is returned as is; a file that
// cannot be read on is a *FileError naming it and where.
func eachObject(in Input, fn func(*object) error) error {
	r := &objectReader{in: in, fn: fn}
	return r.read()
}

// eachRawObject is eachObject without the objects' kinds (nor UIDs and
// versions), for a pass that knows them from an earlier one.
func eachRawObject(in Input, fn func(*object) error) error {
	r := &objectReader{in: in, fn: fn, noKind: true}
	return r.read()
}

func (r *objectReader) fail(where, msg string) error {
	return &FileError{File: r.in.Name, Where: where, Msg: msg}
}

func (r *objectReader) read() error {
	rc, err := r.in.Open()
	if err != nil {
		return fmt.Errorf("snapshot input: %w", err)
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 64<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return r.fail("", "gzip: "+err.Error())
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, 64<<10)
	}
	br, err = r.decodeText(br)
	if err != nil {
		return err
	}
	first, err := firstByte(br)
	if err != nil {
		return err
	}
	switch {
	case first == 0:
		return r.fail("", "the file is empty: want pods, nodes or events as JSON or YAML (kubectl get ... -o json)")
	case first == '{' || first == '[':
		return r.readJSON(br)
	case first < 0x20 && first != '\t' && first != '\n' && first != '\r' || first == 0x7f:
		return r.fail("", fmt.Sprintf("not text (byte 0x%02x): want pods, nodes or events as JSON or YAML", first))
	}
	return r.readYAML(br)
}

// decodeText strips a UTF-8 byte-order mark and turns UTF-16 (with or
// without its mark) into UTF-8; UTF-32 is refused, named.
func (r *objectReader) decodeText(br *bufio.Reader) (*bufio.Reader, error) {
	head, _ := br.Peek(4)
	switch {
	case bytes.HasPrefix(head, []byte{0xef, 0xbb, 0xbf}):
		br.Discard(3)
		return br, nil
	case bytes.HasPrefix(head, []byte{0, 0, 0xfe, 0xff}), bytes.HasPrefix(head, []byte{0xff, 0xfe, 0, 0}):
		return nil, r.fail("", "the file is UTF-32: convert it to UTF-8 (iconv -f UTF-32 -t UTF-8)")
	case bytes.HasPrefix(head, []byte{0xff, 0xfe}):
		br.Discard(2)
		return bufio.NewReaderSize(&utf16Reader{r: br, little: true}, 64<<10), nil
	case bytes.HasPrefix(head, []byte{0xfe, 0xff}):
		br.Discard(2)
		return bufio.NewReaderSize(&utf16Reader{r: br}, 64<<10), nil
	case len(head) >= 2 && head[0] != 0 && head[1] == 0:
		return bufio.NewReaderSize(&utf16Reader{r: br, little: true}, 64<<10), nil
	case len(head) >= 2 && head[0] == 0 && head[1] != 0:
		return bufio.NewReaderSize(&utf16Reader{r: br}, 64<<10), nil
	}
	return br, nil
}

// firstByte returns the first byte that is not white space, unread; 0 at
// the end of the input.
func firstByte(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.ReadByte()
		if err == io.EOF {
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
		switch b {
		case ' ', '\t', '\n', '\r':
			continue
		}
		br.UnreadByte()
		return b, nil
	}
}

// utf16Reader decodes UTF-16 into UTF-8.
type utf16Reader struct {
	r      *bufio.Reader
	little bool
	out    []byte
	err    error
}

func (u *utf16Reader) unit() (uint16, error) {
	var b [2]byte
	if _, err := io.ReadFull(u.r, b[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return 0, errors.New("UTF-16 text cut in the middle of a character")
		}
		return 0, err
	}
	if u.little {
		return uint16(b[0]) | uint16(b[1])<<8, nil
	}
	return uint16(b[1]) | uint16(b[0])<<8, nil
}

func (u *utf16Reader) Read(p []byte) (int, error) {
	for len(u.out) < len(p) && u.err == nil {
		c, err := u.unit()
		if err != nil {
			u.err = err
			break
		}
		ru := rune(c)
		if utf16.IsSurrogate(ru) {
			c2, err := u.unit()
			if err != nil {
				u.err = err
				break
			}
			ru = utf16.DecodeRune(ru, rune(c2))
		}
		u.out = utf8.AppendRune(u.out, ru)
	}
	n := copy(p, u.out)
	u.out = u.out[n:]
	if n == 0 && u.err != nil {
		return 0, u.err
	}
	return n, nil
}

// readJSON reads a stream of JSON values: objects (a List or a single
// object) and arrays of objects, one after the other.
func (r *objectReader) readJSON(br *bufio.Reader) error {
	dec := json.NewDecoder(br)
	dec.UseNumber()
	for v := 0; ; v++ {
		prefix := ""
		if v > 0 {
			prefix = fmt.Sprintf("value %d: ", v+1)
		}
		at := func(where string) string {
			if where == "" {
				if v > 0 {
					return fmt.Sprintf("value %d", v+1)
				}
				return ""
			}
			return prefix + where
		}
		bad := func(where string, err error) error {
			msg := err.Error()
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				msg = "the file ends in the middle of a value (cut short?)"
			}
			return r.fail(at(where), fmt.Sprintf("%s (byte %d)", msg, dec.InputOffset()))
		}
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return bad("", err)
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return r.fail(at(""), fmt.Sprintf("a JSON %s where an object or a list of objects belongs: want kubectl get ... -o json", jsonType(tok)))
		}
		if d == '[' {
			// A plain array of objects, as some tools write each
			// namespace's pods.
			for i := 0; dec.More(); i++ {
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return bad(fmt.Sprintf("[%d]", i), err)
				}
				if err := r.item(raw, "", at(fmt.Sprintf("[%d]", i))); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return bad("", err)
			}
			continue
		}
		// An object: a List (its items streamed) or a single object.
		fields := map[string]json.RawMessage{}
		listKind, hasItems := "", false
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return bad("", err)
			}
			key, _ := kt.(string)
			if key != "items" {
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return bad("", err)
				}
				fields[key] = raw
				if key == "kind" {
					_ = json.Unmarshal(raw, &listKind)
				}
				continue
			}
			hasItems = true
			tok, err := dec.Token()
			if err != nil {
				return bad("items", err)
			}
			if tok == nil {
				continue // "items": null, an empty list
			}
			if d, ok := tok.(json.Delim); !ok || d != '[' {
				return r.fail(at("items"), "items is not a list")
			}
			for i := 0; dec.More(); i++ {
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return bad(fmt.Sprintf("items[%d]", i), err)
				}
				if err := r.item(raw, listKinds[listKind], at(fmt.Sprintf("items[%d]", i))); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return bad("items", err)
			}
		}
		if _, err := dec.Token(); err != nil {
			return bad("", err)
		}
		if !hasItems {
			// A single object, as `kubectl get pod NAME -o json` or a
			// watch prints.
			raw, err := json.Marshal(fields)
			if err != nil {
				return bad("", err)
			}
			where := at("")
			if where == "" {
				where = "the object"
			}
			if err := r.item(raw, "", where); err != nil {
				return err
			}
		}
	}
}

func jsonType(tok json.Token) string {
	switch tok.(type) {
	case string:
		return "string"
	case json.Number, float64:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "value"
}

// readYAML reads YAML documents, each a List or a single object, turned
// into JSON (so that one decoder reads both). A document is held whole
// while it is read.
func (r *objectReader) readYAML(br *bufio.Reader) error {
	dec := yaml.NewDecoder(br)
	for d := 1; ; d++ {
		var n yaml.Node
		err := dec.Decode(&n)
		if err == io.EOF {
			return nil
		}
		docWhere := fmt.Sprintf("document %d", d)
		if err != nil {
			return r.fail(docWhere, "neither JSON nor YAML: "+err.Error())
		}
		y := yamlConv{}
		v, err := y.value(&n, 0, false)
		if err != nil {
			return r.fail(docWhere, err.Error())
		}
		prefix := ""
		if d > 1 {
			prefix = docWhere + ": "
		}
		switch x := v.(type) {
		case nil:
			continue // an empty document, as after a trailing ---
		case []any:
			for i, it := range x {
				if err := r.yamlItem(it, "", fmt.Sprintf("%s[%d]", prefix, i)); err != nil {
					return err
				}
			}
		case map[string]any:
			items, hasItems := x["items"]
			if !hasItems {
				where := docWhere
				if d == 1 {
					where = "the object"
				}
				if err := r.yamlItem(x, "", where); err != nil {
					return err
				}
				continue
			}
			kind, _ := x["kind"].(string)
			switch list := items.(type) {
			case nil:
			case []any:
				for i, it := range list {
					if err := r.yamlItem(it, listKinds[kind], fmt.Sprintf("%sitems[%d]", prefix, i)); err != nil {
						return err
					}
				}
			default:
				return r.fail(prefix+"items", "items is not a list")
			}
		default:
			return r.fail(docWhere, "a single value where an object or a list of objects belongs: want the pods, nodes or events of kubectl get ... -o json|yaml")
		}
	}
}

func (r *objectReader) yamlItem(v any, listKind, where string) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return r.fail(where, err.Error())
	}
	return r.item(raw, listKind, where)
}

// maxYAMLDepth bounds nesting, so that a hostile file cannot exhaust the
// stack.
const maxYAMLDepth = 200

// maxAliased bounds the nodes that aliases expand to in one document, so
// that a few lines of aliases to aliases cannot expand to billions.
const maxAliased = 1 << 20

// yamlConv turns YAML nodes into values, counting what aliases expand to.
type yamlConv struct{ aliased int }

// value turns a YAML node into the value encoding/json would have
// decoded from the same object: mappings with string keys, numbers kept
// as written.
func (y *yamlConv) value(n *yaml.Node, depth int, inAlias bool) (any, error) {
	if depth > maxYAMLDepth {
		return nil, fmt.Errorf("line %d: nested too deep", n.Line)
	}
	if inAlias {
		if y.aliased++; y.aliased > maxAliased {
			return nil, fmt.Errorf("line %d: aliases expand to more than %d values", n.Line, maxAliased)
		}
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return y.value(n.Content[0], depth+1, inAlias)
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, fmt.Errorf("line %d: an alias to nothing", n.Line)
		}
		return y.value(n.Alias, depth+1, true)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := y.value(c, depth+1, inAlias)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.AliasNode && k.Alias != nil {
				k = k.Alias
			}
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: a mapping key that is not a string", k.Line)
			}
			v, err := y.value(n.Content[i+1], depth+1, inAlias)
			if err != nil {
				return nil, err
			}
			if k.Value == "<<" && k.Tag == "!!merge" {
				if m, ok := v.(map[string]any); ok {
					for mk, mv := range m {
						if _, set := out[mk]; !set {
							out[mk] = mv
						}
					}
					continue
				}
			}
			out[k.Value] = v
		}
		return out, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, fmt.Errorf("line %d: %v", n.Line, err)
			}
			return b, nil
		case "!!int", "!!float":
			if json.Valid([]byte(n.Value)) {
				return json.Number(n.Value), nil
			}
			if i, err := strconv.ParseInt(n.Value, 0, 64); err == nil {
				return i, nil
			}
			var f float64
			if err := n.Decode(&f); err == nil && !isInfOrNaN(f) {
				return f, nil
			}
			return n.Value, nil
		}
		return n.Value, nil
	}
	return nil, fmt.Errorf("line %d: an unexpected YAML node", n.Line)
}

func isInfOrNaN(f float64) bool {
	return f != f || f > 1.7976931348623157e308 || f < -1.7976931348623157e308
}

// item hands one object to fn with its kind decided.
func (r *objectReader) item(raw []byte, listKind, where string) error {
	o := &object{raw: raw, where: where}
	if !r.noKind {
		o.kind, o.uid, o.version = kindOf(raw, listKind)
	}
	return r.fn(o)
}

// shape is what tells an object's kind when it carries none.
type shape struct {
	Kind     string `json:"kind"`
	Metadata struct {
		UID             string `json:"uid"`
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
	InvolvedObject json.RawMessage `json:"involvedObject"`
	Regarding      json.RawMessage `json:"regarding"`
	Spec           struct {
		Containers json.RawMessage `json:"containers"`
		ProviderID string          `json:"providerID"`
		PodCIDR    string          `json:"podCIDR"`
	} `json:"spec"`
	Status struct {
		Allocatable       json.RawMessage `json:"allocatable"`
		NodeInfo          json.RawMessage `json:"nodeInfo"`
		ContainerStatuses json.RawMessage `json:"containerStatuses"`
	} `json:"status"`
}

// kindOf is an object's kind: its own, else its list's, else its shape's
// (a pod has containers, a node allocatable resources or node info, an
// event the object it is about); "" when none tells.
func kindOf(raw []byte, listKind string) (kind, uid, version string) {
	var s shape
	if err := json.Unmarshal(raw, &s); err != nil {
		// Not an object, or a field of the wrong type: let the kind the
		// list gives decide, and the decoder of that kind say what is
		// wrong.
		var k struct{ Kind string }
		if json.Unmarshal(raw, &k) == nil && k.Kind != "" {
			return k.Kind, "", ""
		}
		return listKind, "", ""
	}
	uid, version = s.Metadata.UID, s.Metadata.ResourceVersion
	switch {
	case s.Kind != "":
		return s.Kind, uid, version
	case listKind != "":
		return listKind, uid, version
	case len(s.InvolvedObject) > 0 || len(s.Regarding) > 0:
		return "Event", uid, version
	case len(s.Spec.Containers) > 0 || len(s.Status.ContainerStatuses) > 0:
		return "Pod", uid, version
	case len(s.Status.Allocatable) > 0 || len(s.Status.NodeInfo) > 0 || s.Spec.ProviderID != "" || s.Spec.PodCIDR != "":
		return "Node", uid, version
	}
	return "", uid, version
}
