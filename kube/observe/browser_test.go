//go:build linux

package observe

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The browser test needs Chromium, which Go alone cannot provide. On Debian:
//
//	apt-get install -y chromium
//	go test ./kube/observe -run TestStatusPageInBrowser -v
//
// SPINDLE_CHROMIUM names the binary when it is not on PATH as chromium,
// chromium-browser, google-chrome or google-chrome-stable.
// SPINDLE_BROWSER_REQUIRED=1 turns a missing browser into a failure (.ci/run
// sets it when it finds one, so a broken lookup cannot pass silently).
// SPINDLE_SCREENSHOT=FILE.png also saves a screenshot of the page.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("SPINDLE_CHROMIUM"); p != "" {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("SPINDLE_CHROMIUM=%s: %v", p, err)
		}
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no Chromium found: the status page is NOT checked in a browser. " +
		"Install it (Debian: apt-get install -y chromium) or set SPINDLE_CHROMIUM, then run " +
		"go test ./kube/observe -run TestStatusPageInBrowser -v"
	if os.Getenv("SPINDLE_BROWSER_REQUIRED") == "1" {
		t.Fatal(msg)
	}
	// Not a failure under CI=true: CI promises only Go, and installing a
	// browser would need a distribution mirror. .ci/run prints this too.
	t.Skip("SKIPPED LOUDLY: " + msg)
	return ""
}

// runChromium runs one headless Chromium command against url and returns
// its stdout. Chromium forks helpers (zygote, renderer, crash handler) that
// outlive its main process, so it runs in its own process group, which is
// killed by id when the command ends or times out; the test process is made
// their subreaper so that it can also reap them, leaving no zombie behind
// when PID 1 does not reap.
func runChromium(t *testing.T, bin, url string, extra ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--disable-crash-reporter", "--disable-breakpad", "--user-data-dir=" + t.TempDir(),
		// Let the page's fetches finish before the DOM is dumped: virtual
		// time runs only while the network is idle.
		"--virtual-time-budget=10000"}
	args = append(append(args, extra...), url)
	// PR_SET_CHILD_SUBREAPER: orphaned helpers become our children.
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, 36, 1, 0); errno != 0 {
		t.Fatalf("prctl(PR_SET_CHILD_SUBREAPER): %v", errno)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if cmd.Process != nil {
		if kerr := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); kerr != nil && !errors.Is(kerr, syscall.ESRCH) {
			t.Errorf("killing chromium's process group %d: %v", cmd.Process.Pid, kerr)
		}
		for { // reap the killed group; ECHILD once none is left
			var ws syscall.WaitStatus
			if _, werr := syscall.Wait4(-cmd.Process.Pid, &ws, 0, nil); werr != nil {
				if !errors.Is(werr, syscall.ECHILD) && !errors.Is(werr, syscall.EINTR) {
					t.Errorf("reaping chromium's process group %d: %v", cmd.Process.Pid, werr)
				}
				if !errors.Is(werr, syscall.EINTR) {
					break
				}
			}
		}
		reapAdopted(t)
	}
	if err != nil {
		t.Fatalf("%s %s: %v\nstderr:\n%s", bin, strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

func TestStatusPageInBrowser(t *testing.T) {
	bin := chromium(t)
	r := NewRecorder(Options{UtilEvery: 10 * time.Second})
	r.SetRole(RoleLeader)
	r.SetSynced(true)
	// Names come from pod labels anyone may set: the page must show them as
	// text, never as markup.
	r.Decide(Decision{Time: t0, Pod: `default/<img id="injected" src="x">`, Job: "j", Queue: "default", Node: "n", Policy: "dress"})
	const batches = 30
	fakeCluster(r, batches)
	srv := httptest.NewServer(r.Handler()) // 127.0.0.1 only
	defer srv.Close()

	dom := runChromium(t, bin, srv.URL+"/", "--dump-dom")
	// data-seq is set only after the script fetched and rendered everything.
	if !strings.Contains(dom, fmt.Sprintf(`data-seq="%d"`, batches)) {
		t.Fatalf("page script did not render snapshot %d; DOM:\n%s", batches, dom)
	}
	cell := func(s string) string { return "<td>" + s + "</td>" }
	for _, want := range []string{
		cell("etl"), cell("adhoc"), // queues table
		cell("spark-pi"), cell("spark-sql-report"), cell("lone-pod"), // jobs table
		"waiting: AutoAdmin: 5 vcores free",                                                                                                // why the AM waits
		cell("analytics/spark-sql-report-driver (AM)"), cell("0/2 nodes are available: 1 Insufficient cpu, 1 node(s) were unschedulable."), // pending pods
		cell("kwok-node-1"), "no: unschedulable (cordoned)",
		cell("analytics/spark-pi-exec-30"),               // newest decision first
		cell("dress_delta"), `<td class="num">0.39</td>`, // 0.1 + 0.01*29
		`<dd id="policy">dress</dd>`, `<dd id="role">leader</dd>`,
		// CPU 2000+29*300 = 10700 of 20000 usable; memory 4096 of 65536.
		`<span id="util-cpu-now">53.5%</span>`, `<span id="util-mem-now">6.3%</span>`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("rendered DOM lacks %q", want)
		}
	}
	if strings.Contains(dom, `<img id="injected"`) || !strings.Contains(dom, `default/&lt;img id="injected" src="x"&gt;`) {
		t.Errorf("a pod name was rendered as markup, not text")
	}
	m := regexp.MustCompile(`<polyline id="util-cpu" class="cpu" points="([^"]*)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("no CPU polyline in DOM:\n%s", dom)
	}
	if pts := strings.Fields(m[1]); len(pts) != batches {
		t.Errorf("CPU polyline has %d points, want %d (one per sample): %q", len(pts), batches, m[1])
	} else if pts[0] != "0.0,180.0" || pts[batches-1] != "800.0,93.0" {
		// The chart is 800x200 with 100% at the top: the first sample (10%)
		// sits at x 0, y 180; the last (53.5%) at the right edge, y 93.
		t.Errorf("CPU polyline runs %s .. %s, want 0.0,180.0 .. 800.0,93.0", pts[0], pts[batches-1])
	}
	if strings.Contains(dom, `class="error"`) && !strings.Contains(dom, `class="error" hidden`) {
		t.Errorf("page shows an error:\n%s", dom)
	}

	if out := os.Getenv("SPINDLE_SCREENSHOT"); out != "" {
		out, err := filepath.Abs(out)
		if err != nil {
			t.Fatal(err)
		}
		runChromium(t, bin, srv.URL+"/", "--screenshot="+out, "--window-size=1200,1000", "--hide-scrollbars")
		if st, err := os.Stat(out); err != nil || st.Size() == 0 {
			t.Fatalf("screenshot %s not written: %v", out, err)
		}
		t.Logf("screenshot: %s", out)
	}
}

// reapAdopted kills, by pid, and reaps every process this test process has
// adopted as subreaper: Chromium helpers (the crash handler) that call
// setsid and so escape the process-group kill. The test process
// starts no other children.
func reapAdopted(t *testing.T) {
	t.Helper()
	me := os.Getpid()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Errorf("listing /proc: %v", err)
		return
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone already
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) < 2 || f[1] != strconv.Itoa(me) {
			continue
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			t.Errorf("killing adopted chromium helper %d: %v", pid, err)
		}
		var ws syscall.WaitStatus
		for {
			if _, err := syscall.Wait4(pid, &ws, 0, nil); !errors.Is(err, syscall.EINTR) {
				break
			}
		}
	}
}
