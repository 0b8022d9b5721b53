// Command kubecerts is hack/local-cluster.sh's helper for the two things a
// shell script cannot do portably with only Go installed: generate the
// cluster's certificates and kubeconfig, and find free TCP ports on 127.0.0.1.
//
//	go run ./hack/kubecerts certs -dir DIR -server https://127.0.0.1:PORT -kubeconfig FILE
//	go run ./hack/kubecerts ports N
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"

	"github.com/spindle-sched/spindle/internal/kubepki"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage:
  kubecerts certs -dir DIR -server URL -kubeconfig FILE
      write a fresh CA, apiserver serving certificate, admin client certificate
      and service-account key pair into DIR, and an admin kubeconfig for URL
  kubecerts ports N
      print N distinct free TCP ports on 127.0.0.1, one per line
`

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "certs":
		fs := flag.NewFlagSet("certs", flag.ContinueOnError)
		fs.SetOutput(stderr)
		dir := fs.String("dir", "", "directory for the PEM files (required)")
		server := fs.String("server", "", "apiserver URL for the kubeconfig (required)")
		kubeconfig := fs.String("kubeconfig", "", "kubeconfig file to write (required)")
		if err := fs.Parse(args[1:]); err != nil {
			return 2
		}
		if *dir == "" || *server == "" || *kubeconfig == "" {
			fmt.Fprint(stderr, "kubecerts certs: -dir, -server and -kubeconfig are required\n", usage)
			return 2
		}
		files, err := kubepki.Write(*dir)
		if err != nil {
			fmt.Fprintln(stderr, "kubecerts:", err)
			return 1
		}
		if err := os.WriteFile(*kubeconfig, []byte(files.Kubeconfig(*server)), 0o600); err != nil {
			fmt.Fprintln(stderr, "kubecerts:", err)
			return 1
		}
		return 0
	case "ports":
		if len(args) != 2 {
			fmt.Fprint(stderr, usage)
			return 2
		}
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 1 || n > 100 {
			fmt.Fprintf(stderr, "kubecerts ports: N must be an integer in 1..100, got %q\n", args[1])
			return 2
		}
		// Hold every listener until all are chosen so the ports are distinct.
		var ls []net.Listener
		defer func() {
			for _, l := range ls {
				l.Close()
			}
		}()
		for range n {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				fmt.Fprintln(stderr, "kubecerts:", err)
				return 1
			}
			ls = append(ls, l)
			fmt.Fprintln(stdout, l.Addr().(*net.TCPAddr).Port)
		}
		return 0
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "kubecerts: unknown command %q\n%s", args[0], usage)
		return 2
	}
}
