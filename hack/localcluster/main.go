// Command localcluster is hack/local-cluster.sh's Go half: it starts a
// control plane in a state directory with package localcluster, detached so
// that it outlives this command, and returns once every component is up and
// the kwok nodes are Ready. The script itself stops the processes by the PIDs
// in the state directory.
//
//	go run ./hack/localcluster -dir STATE -bin BIN [-nodes N -node-cpu C -node-memory M -node-pods P] [-with-scheduler]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spindle-sched/spindle/internal/controlplane/localcluster"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("localcluster", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "state directory: PKI, kubeconfig, etcd data, logs and pidfiles (required)")
	bin := fs.String("bin", "", "directory holding the binaries hack/build-kube.sh built (required)")
	nodes := fs.Int("nodes", 3, "kwok nodes to create")
	cpu := fs.String("node-cpu", "32", "each node's cpu capacity (a Kubernetes quantity)")
	memory := fs.String("node-memory", "256Gi", "each node's memory capacity (a Kubernetes quantity)")
	pods := fs.Int("node-pods", 110, "each node's pod capacity")
	scheduler := fs.Bool("with-scheduler", false, "also run kube-scheduler")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *dir == "" || *bin == "" {
		fmt.Fprintln(stderr, "localcluster: -dir and -bin are required")
		fs.Usage()
		return 2
	}
	if *nodes < 0 || *pods < 1 {
		fmt.Fprintf(stderr, "localcluster: -nodes must be >= 0 and -node-pods >= 1 (got %d, %d)\n", *nodes, *pods)
		return 2
	}
	if _, err := localcluster.NewNode("check", *cpu, *memory, *pods); err != nil {
		fmt.Fprintln(stderr, "localcluster:", err)
		return 2
	}
	if err := os.MkdirAll(*dir, 0o700); err != nil {
		fmt.Fprintln(stderr, "localcluster:", err)
		return 1
	}
	// Interrupted while starting: Start's error path stops what it started.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := localcluster.Start(ctx, *bin, *dir, localcluster.Options{
		Kwok:              true,
		ControllerManager: true,
		Scheduler:         *scheduler,
		Nodes:             *nodes,
		NodeCPU:           *cpu,
		NodeMemory:        *memory,
		NodePods:          *pods,
		Detach:            true,
	})
	if err != nil {
		fmt.Fprintln(stderr, "localcluster:", err)
		return 1
	}
	for _, p := range c.Procs {
		fmt.Fprintf(stdout, "started %-24s pid %-7d log %s\n", p.Name, p.PID, p.Log)
	}
	fmt.Fprintf(stdout, "apiserver %s, %d kwok nodes Ready\n", c.Config.Host, *nodes)
	return 0
}
