package cli

import "github.com/spf13/cobra"

func newKube() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "kube",
		Short: "Run spindle against a Kubernetes cluster",
		Long: `kube groups the commands that work on a real Kubernetes apiserver: replaying a
workload as pods on kwok nodes, recording what a running cluster runs,
measuring a scheduler's throughput, and asking a running scheduler when its
waiting jobs should start.`,
		Args: cobra.NoArgs,
	}
	// The subcommands; adding one is adding it here.
	cmd.AddCommand(newKubeSchedule(), newKubeReplay(), newKubeBench(), newKubeRecord(), newKubeSweep(), newKubeForecast())
	return cmd
}
