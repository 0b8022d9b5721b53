package workload

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"testing/iotest"
)

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		minimalYAML,
		fullYAML,
		fullJSON,
		"version: 1\n" + okCluster + okJobs,
		"version: 1\n" + okCluster + "jobs: [{id: a, phases: [{tasks: 2, request: {vcores: 0.5}, duration: [1, 2e-3]}]}]\n",
		`{"version": 1, "cluster": {"nodes": [{"vcores": 1, "memory_mb": 1}]}, "jobs": [{"id": "\ud83d\ude00", "am": {}, "phases": [{"tasks": 1, "request": {"vcores": 1}, "duration": "1s"}]}]}`,
		"version: 1\njobs: &j [*j]\n",
		"{\"version\": 1,}",
		"{\"a\": \"\\ud800\"}",
		"version: 2\n",
	} {
		f.Add([]byte(s))
	}
	// Seeds are kept small: the fuzzer spends up to a minute minimizing each
	// new input it finds, and that time grows with the input's size.
	small := richWorkload()
	last := &small.Jobs[len(small.Jobs)-1].Phases[0]
	last.Tasks, last.Durations = 3, last.Durations[:3]
	for _, w := range []*Workload{fullWorkload(), small} {
		for _, format := range []Format{YAML, JSON} {
			var buf bytes.Buffer
			if err := Write(&buf, w, format); err != nil {
				f.Fatal(err)
			}
			f.Add(buf.Bytes())
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := Parse(data, "fuzz")
		if bytes.HasPrefix(bytes.TrimLeft(bytes.TrimPrefix(data, bom), " \t\r\n"), []byte("{")) {
			// Decoding a stream a byte at a time gives what decoding the
			// document in memory gives, errors and their lines included.
			sw, serr := decode(newJSONStream(nil, iotest.OneByteReader(bytes.NewReader(bytes.TrimPrefix(data, bom)))),
				func() (puller, error) { return newJSONSource(bytes.TrimPrefix(data, bom)), nil }, "fuzz")
			if !reflect.DeepEqual(sw, w) || fmt.Sprint(serr) != fmt.Sprint(err) {
				t.Fatalf("streamed decoding differs:\n got %v, %v\nwant %v, %v", sw, serr, w, err)
			}
		}
		if err != nil {
			var perr *Error
			if !errors.As(err, &perr) || len(perr.Issues) == 0 {
				t.Fatalf("error %T %v is not a non-empty *Error", err, err)
			}
			_ = err.Error()
			return
		}
		if err := w.Validate(); err != nil {
			t.Fatalf("parsed workload does not validate: %v", err)
		}
		for _, format := range []Format{YAML, JSON} {
			var buf bytes.Buffer
			if err := Write(&buf, w, format); err != nil {
				t.Fatalf("Write %v: %v", format, err)
			}
			got, err := Parse(buf.Bytes(), "written")
			if err != nil {
				t.Fatalf("Parse of written %v: %v\n%s", format, err, buf.Bytes())
			}
			if !reflect.DeepEqual(got, w) {
				t.Fatalf("%v round trip differs\n got: %+v\nwant: %+v\n%s", format, got, w, buf.Bytes())
			}
		}
	})
}
