package workload

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// Load decodes a JSON file as it reads it. A file many times the read
// window, plain and gzipped, gives the workload that decoding it whole
// gives, and an error near its end names the right line.
func TestLoadStreamsLargeJSON(t *testing.T) {
	w := bigWorkload(2000, 60)
	var buf bytes.Buffer
	if err := Write(&buf, w, JSON); err != nil {
		t.Fatal(err)
	}
	doc := buf.Bytes()
	if len(doc) < 4*streamChunk {
		t.Fatalf("document of %d bytes does not span several read windows", len(doc))
	}
	want, err := Parse(doc, "mem")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, data []byte, gz bool) string {
		p := filepath.Join(dir, name)
		if gz {
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			zw.Write(data)
			zw.Close()
			data = z.Bytes()
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, gz := range []bool{false, true} {
		name := "w.json"
		if gz {
			name += ".gz"
		}
		got, err := Load(write(name, doc, gz))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: streamed workload differs from the one decoded in memory", name)
		}
	}

	// A bad value in the last job, and a validation error there, which is
	// found only after decoding and located by reading the file again.
	lines := strings.Split(string(doc), "\n")
	last := len(lines) - 1
	for last >= 0 && !strings.Contains(lines[last], `"tasks": 60`) {
		last--
	}
	if last < 0 {
		t.Fatal("no job line found")
	}
	for _, c := range []struct{ from, to, want string }{
		{`"tasks": 60`, `"tasks": "x"`, "must be an integer"},
		{`"tasks": 60`, `"tasks": 61`, "one per task"},
	} {
		bad := append([]string{}, lines...)
		bad[last] = strings.Replace(bad[last], c.from, c.to, 1)
		p := write("bad.json", []byte(strings.Join(bad, "\n")), false)
		_, err := Load(p)
		if err == nil {
			t.Fatalf("%s: no error", c.to)
		}
		_, memErr := Parse([]byte(strings.Join(bad, "\n")), p)
		if err.Error() != memErr.Error() {
			t.Errorf("%s: streamed error %q, in memory %q", c.to, err, memErr)
		}
		wantLine := ":" + strconv.Itoa(last+1) + ":"
		if !strings.Contains(err.Error(), wantLine) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not name line %d and %q", c.to, err, last+1, c.want)
		}
	}
}
