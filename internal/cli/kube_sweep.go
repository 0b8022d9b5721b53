package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/shard/kubejob"
)

func newKubeSweep() *cobra.Command {
	var f runFlags
	var pols []string
	var merge bool
	s := kubejob.Spec{Name: "spindle-sweep", Namespace: "default", BackoffLimitPerIndex: 2, StorageSize: "1Gi",
		CPU: "1", Memory: "1Gi"}
	cmd := &cobra.Command{
		Use:   "sweep -w WORKLOAD -p p1,p2,... --shards N --image IMAGE [--namespace NS] [--storage PVC] [--merge]",
		Short: "Print the manifests that run a comparison's shards as a Kubernetes Indexed Job",
		Long: `Print, for 'kubectl apply -f -', the manifests that run 'spindle compare' of
WORKLOAD under the policies, in N shards on a cluster:

  - a ConfigMap holding the workload (at most 1 MiB; .gz is read as is);
  - a PersistentVolumeClaim for the results (ReadWriteMany), unless --storage
    names an existing claim every node can write;
  - an Indexed Job (completionMode Indexed, completions N): pod i runs
    'spindle compare ... --shard i/N -o /results/NAME/shard-i', i taken from
    JOB_COMPLETION_INDEX; backoffLimitPerIndex (--retries) retries a failed
    shard alone, with restartPolicy Never.

Once the Job is Complete, --merge prints the Job that joins the parts into
/results/NAME/merged with 'spindle merge': what one 'spindle compare -o'
writes, with -w /workload/FILE as the workload's name in the summaries.

IMAGE is the image 'go run ./hack/image' builds (spindle alone, running as
65532:65532), pushed where the cluster pulls from. See README, "Sweeps at
scale".`,
		Example: `  go run ./hack/image -o spindle-image.tar -tag registry.example/spindle:dev   # then load or push it
  spindle kube sweep -w month.json.gz -p fifo,fair,drf,dress+ --shards 8 \
      --image registry.example/spindle:dev --namespace sweeps | kubectl apply -f -
  kubectl -n sweeps wait --for=condition=Complete job/spindle-sweep --timeout=24h
  spindle kube sweep -w month.json.gz -p fifo,fair,drf,dress+ --shards 8 \
      --image registry.example/spindle:dev --namespace sweeps --merge | kubectl apply -f -`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.workload == "" {
				return usagef("no workload: pass -w FILE (the ConfigMap carries it to the pods)")
			}
			list := params.SplitList(strings.Join(pols, ","))
			if len(list) == 0 {
				return usagef("no policy: pass -p p1,p2,... (known: %s)", strings.Join(policy.Names(), ", "))
			}
			if _, err := dirNamesOf(list); err != nil {
				return err
			}
			if _, err := f.specs(list); err != nil {
				return err
			}
			if !cmd.Flags().Changed("shards") {
				return usagef("--shards N is required (the number of pods, at most the %d policies to be of use)", len(list))
			}
			b, err := os.ReadFile(f.workload)
			if err != nil {
				return fmt.Errorf("workload: %w", err)
			}
			s.WorkloadFile, s.Workload = f.workload, b
			s.Args = []string{"compare", "-p", strings.Join(list, ","), "-a", f.admission,
				"--seed", strconv.FormatUint(f.seed, 10)}
			out := cmd.OutOrStdout()
			if merge {
				job, err := kubejob.MergeJob(s)
				if err != nil {
					return usageError{err}
				}
				fmt.Fprintf(out, "# Merges the %d shards of job/%s into %s on claim %s.\n", s.Shards, s.Name, s.MergedDir(), claimName(s))
				fmt.Fprintf(out, "#   kubectl -n %s wait --for=condition=Complete job/%s-merge\n", s.Namespace, s.Name)
				return kubejob.WriteYAML(out, job)
			}
			objs, err := kubejob.Objects(s)
			if err != nil {
				return usageError{err}
			}
			if s.Shards > len(list) {
				fmt.Fprintf(cmd.ErrOrStderr(), "note: %d shards for %d policies: %d pods will have nothing to run\n", s.Shards, len(list), s.Shards-len(list))
			}
			writeSweepHowTo(out, s)
			return kubejob.WriteYAML(out, objs...)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.workload, "workload", "w", "", "workload file (YAML or JSON, format v1; .gz accepted), put in a ConfigMap")
	fl.StringSliceVarP(&pols, "policy", "p", nil, "policies to compare, comma-separated")
	fl.StringVarP(&f.admission, "admission", "a", "none", "admission controller of every run")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of every run")
	fl.IntVar(&s.Shards, "shards", 0, "number of shards: the Job's completions, one pod each")
	fl.StringVar(&s.Image, "image", "", "spindle's image, as 'go run ./hack/image' builds it")
	fl.StringVar(&s.Namespace, "namespace", s.Namespace, "namespace of every object")
	fl.StringVar(&s.Name, "name", s.Name, "name of the Job (and prefix of the other objects)")
	fl.StringVar(&s.Storage, "storage", "", "an existing ReadWriteMany PersistentVolumeClaim for the results (default: the manifests make NAME-results)")
	fl.StringVar(&s.StorageSize, "storage-size", s.StorageSize, "size of the results claim the manifests make")
	fl.IntVar(&s.Parallelism, "parallelism", 0, "shards running at once (default: all)")
	fl.IntVar(&s.BackoffLimitPerIndex, "retries", s.BackoffLimitPerIndex, "retries of a failed shard (backoffLimitPerIndex)")
	fl.StringVar(&s.CPU, "cpu", s.CPU, "CPU request of each shard's pod")
	fl.StringVar(&s.Memory, "memory", s.Memory, "memory request of each shard's pod")
	fl.BoolVar(&merge, "merge", false, "print the Job that merges the shards' parts instead (apply it once the sweep's Job is Complete)")
	return cmd
}

func claimName(s kubejob.Spec) string {
	if s.Storage != "" {
		return s.Storage
	}
	return s.Name + "-results"
}

// writeSweepHowTo heads the manifests with how to run and merge them, as
// YAML comments so the stream still applies as it is.
func writeSweepHowTo(out io.Writer, s kubejob.Spec) {
	fmt.Fprintf(out, `# spindle %s: %d shards of 'spindle compare' as the Indexed Job %s/%s.
# Each shard writes %s on claim %s.
#   kubectl apply -f THIS_FILE
#   kubectl -n %s wait --for=condition=Complete job/%s --timeout=24h
# Then merge: run this command again with --merge and apply its Job; the
# merged run (what one 'spindle compare -o' writes) is %s on the claim.
# A shard that failed more than %d times leaves the Job Failed: see
#   kubectl -n %s get job/%s -o jsonpath='{.status.failedIndexes}'
`, version(), s.Shards, s.Namespace, s.Name, s.PartDir("<i>"), claimName(s), s.Namespace, s.Name, s.MergedDir(),
		s.BackoffLimitPerIndex, s.Namespace, s.Name)
}
