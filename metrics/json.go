package metrics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// summaryFields is the Summary's own JSON keys; any other top-level key in a
// summary is a report section.
var summaryFields = func() map[string]bool {
	m := map[string]bool{}
	t := reflect.TypeOf(Summary{})
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			m[name] = true
		}
	}
	return m
}()

// MarshalJSON writes the summary's fields, then each report section as a
// top-level key, in name order, so that `--json` shows e.g. "dress": {...}
// beside the metrics.
func (s *Summary) MarshalJSON() ([]byte, error) {
	type plain Summary
	b, err := json.Marshal((*plain)(s))
	if err != nil || len(s.Reports) == 0 {
		return b, err
	}
	names := make([]string, 0, len(s.Reports))
	for n := range s.Reports {
		if summaryFields[n] {
			return nil, fmt.Errorf("report section %q collides with a summary field", n)
		}
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1])
	for _, n := range names {
		v, err := json.Marshal(s.Reports[n])
		if err != nil {
			return nil, fmt.Errorf("report %s: %w", n, err)
		}
		k, _ := json.Marshal(n)
		buf.WriteByte(',')
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads a summary back, keeping unknown top-level keys as
// report sections (as raw JSON), so saved runs can be re-rendered.
func (s *Summary) UnmarshalJSON(b []byte) error {
	type plain Summary
	if err := json.Unmarshal(b, (*plain)(s)); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	for k, v := range all {
		if !summaryFields[k] {
			if s.Reports == nil {
				s.Reports = map[string]any{}
			}
			s.Reports[k] = v
		}
	}
	return nil
}
