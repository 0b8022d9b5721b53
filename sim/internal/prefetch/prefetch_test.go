package prefetch

import (
	"testing"
	"unsafe"
)

// A hint must never fault, whatever it points at, and must change nothing.
func TestLineIsOnlyAHint(t *testing.T) {
	buf := []uint64{1, 2, 3}
	Line(nil)
	Line(unsafe.Pointer(&buf[0]))
	// One past the end, and far past it: neither may fault.
	end := unsafe.Add(unsafe.Pointer(&buf[0]), len(buf)*8)
	Line(end)
	Line(unsafe.Add(end, 1<<40))
	for i, v := range buf {
		if v != uint64(i+1) {
			t.Fatalf("buf[%d] = %d after hints, want %d", i, v, i+1)
		}
	}
}

func BenchmarkLine(b *testing.B) {
	buf := make([]byte, 1<<20)
	for i := 0; b.Loop(); i++ {
		Line(unsafe.Pointer(&buf[i*64&(len(buf)-1)]))
	}
}
