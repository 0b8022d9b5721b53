package cli

import "github.com/spf13/cobra"

func init() { extraCommands = append(extraCommands, newKube) }

// kubeCommands are the subcommands of 'spindle kube'; each feature's file
// adds its own from init, so features do not edit this list.
var kubeCommands []func() *cobra.Command

func newKube() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "kube",
		Short: "Run spindle against a Kubernetes cluster",
		Long: `kube groups the commands that work on a real Kubernetes apiserver: replaying a
workload as pods on kwok nodes, and measuring a scheduler's throughput.`,
		Args: cobra.NoArgs,
	}
	for _, f := range kubeCommands {
		cmd.AddCommand(f())
	}
	return cmd
}
