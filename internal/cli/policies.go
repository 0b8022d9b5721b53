package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/spindle-sched/spindle/admission"
	"github.com/spindle-sched/spindle/policy"
)

func newPolicies() *cobra.Command {
	return &cobra.Command{
		Use:   "policies",
		Short: "List the scheduling policies, admission controllers and their parameters",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			fmt.Fprintln(out, "Policies (-p NAME or -p NAME:key=value,...):")
			for _, e := range policy.Entries() {
				fmt.Fprintf(out, "\n  %s\n      %s\n", e.Name, e.Summary)
				fmt.Fprintf(out, "      queues: %s\n      priority: %s\n", e.Queues, e.Priority)
				for _, p := range e.Parameters() {
					fmt.Fprintf(out, "      %s\n", p)
				}
			}
			fmt.Fprintln(out, "\nAdmission controllers (-a):")
			for _, a := range admission.Entries() {
				fmt.Fprintf(out, "\n  %s\n      %s\n", a.Label(), a.Summary)
				fmt.Fprintf(out, "      queues: %s\n", a.Queues)
				for _, p := range a.Parameters() {
					fmt.Fprintf(out, "      %s\n", p)
				}
			}
			return nil
		},
	}
}
