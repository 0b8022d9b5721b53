package trace

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// synthGoogle writes about n lines of Google 2011 task_events in the
// trace's own shape: jobs arriving over time with a heavy-tailed number of
// tasks, each task submitted, scheduled and ended (mostly FINISH, some
// KILL or FAIL, some evicted and rescheduled, some still running at the
// end), field values like the real ones, and the lines in time order.
// It is for measuring the converter: the values mean nothing.
func synthGoogle(w io.Writer, n int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 1))
	type event struct {
		ts   int64
		line string
	}
	users := make([]string, 64)
	for i := range users {
		var b strings.Builder
		for range 43 {
			b.WriteByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[rng.IntN(64)])
		}
		b.WriteByte('=')
		users[i] = b.String()
	}
	cpus := []string{"0.0625", "0.03125", "0.125", "0.25", "0.01562", "0.5"}
	mems := []string{"0.01553", "0.03106", "0.0625", "0.1241", "0.007942", "0.2493"}
	var evs []event
	now := int64(600_000_000)
	for job := int64(6_000_000_000); len(evs) < n; job++ {
		now += int64(rng.ExpFloat64() * 2e6)
		tasks := 1
		if rng.IntN(10) == 0 {
			tasks = 1 + int(rng.ExpFloat64()*100)
		}
		user, class, prio := users[rng.IntN(len(users))], rng.IntN(4), rng.IntN(12)
		cpu, mem := cpus[rng.IntN(len(cpus))], mems[rng.IntN(len(mems))]
		emit := func(ts int64, idx, ev int, machine int64, req bool) {
			var line string
			if req {
				line = fmt.Sprintf("%d,,%d,%d,%s,%d,%s,%d,%d,%s,%s,0.0003862,%d", ts, job, idx, optMachine(machine), ev, user, class, prio, cpu, mem, rng.IntN(2))
			} else {
				line = fmt.Sprintf("%d,,%d,%d,%s,%d,%s,%d,%d,,,,", ts, job, idx, optMachine(machine), ev, user, class, prio)
			}
			evs = append(evs, event{ts, line})
		}
		for idx := range tasks {
			t := now + int64(rng.IntN(1000))
			emit(t, idx, evSubmit, 0, true)
			machine := 1_000_000 + rng.Int64N(12_000)
			t += int64(rng.ExpFloat64() * 5e6)
			emit(t, idx, evSchedule, machine, true)
			if rng.IntN(20) == 0 { // evicted, resubmitted, rescheduled
				t += int64(rng.ExpFloat64() * 60e6)
				emit(t, idx, evEvict, machine, false)
				emit(t, idx, evSubmit, 0, true)
				t += int64(rng.ExpFloat64() * 5e6)
				machine = 1_000_000 + rng.Int64N(12_000)
				emit(t, idx, evSchedule, machine, true)
			}
			t += int64(rng.ExpFloat64() * 300e6)
			switch r := rng.IntN(100); {
			case r < 70:
				emit(t, idx, evFinish, machine, false)
			case r < 85:
				emit(t, idx, evKill, machine, false)
			case r < 95:
				emit(t, idx, evFail, machine, false)
			}
		}
	}
	slices.SortStableFunc(evs, func(a, b event) int {
		switch {
		case a.ts < b.ts:
			return -1
		case a.ts > b.ts:
			return 1
		}
		return 0
	})
	bw := bufio.NewWriter(w)
	for _, e := range evs[:n] {
		bw.WriteString(e.line)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

func optMachine(m int64) string {
	if m == 0 {
		return ""
	}
	return fmt.Sprint(m)
}

var (
	synthOut   = flag.String("synth-google", "", "write synthetic Google task_events to this file (.gz to compress); run with -run '^TestSynthGoogle$'")
	synthLines = flag.Int("synth-lines", 1_000_000, "lines for -synth-google")
)

// TestSynthGoogle writes the synthetic task_events used to measure 'trace
// convert' from the command line:
//
//	go test ./trace -run '^TestSynthGoogle$' -synth-google "$PWD/task_events.csv.gz"
func TestSynthGoogle(t *testing.T) {
	if *synthOut == "" {
		t.Skip("no -synth-google file given")
	}
	f, err := os.Create(*synthOut)
	if err != nil {
		t.Fatal(err)
	}
	var w io.Writer = f
	var zw *gzip.Writer
	if strings.HasSuffix(*synthOut, ".gz") {
		zw = gzip.NewWriter(f)
		w = zw
	}
	if err := synthGoogle(w, *synthLines, 1); err != nil {
		t.Fatal(err)
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkGoogle converts 200,000 synthetic task_events lines and reports
// lines per second.
func BenchmarkGoogle(b *testing.B) {
	var sb strings.Builder
	const lines = 200_000
	if err := synthGoogle(&sb, lines, 1); err != nil {
		b.Fatal(err)
	}
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := convertSources("google2011", []source{bytesSource("task_events.csv", data)}, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// BenchmarkSWF converts a synthetic 100,000-record SWF log.
func BenchmarkSWF(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("; MaxNodes: 128\n; MaxProcs: 128\n")
	for i := 1; i <= 100_000; i++ {
		fmt.Fprintf(&sb, "%6d %9d %5d %6d %4d -1 -1 %4d -1 -1 1 %3d 1 %3d -1 -1 -1 -1\n", i, i*30, i%50, 1+i%3600, 1<<(i%8), 1<<(i%8), i%97, i%41)
	}
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := convertSources("swf", []source{bytesSource("log.swf", data)}, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(100_000*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}
