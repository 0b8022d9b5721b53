package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spindle-sched/spindle/experiments"
	"github.com/spindle-sched/spindle/experiments/traces"
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
		Use:   "sweep --shards N --image IMAGE [--namespace NS] [--storage PVC] [--merge] (-w WORKLOAD -p p1,p2,... | -- COMMAND ARGS...)",
		Short: "Print the manifests that run a command's shards as a Kubernetes Indexed Job",
		Long: `Print, for 'kubectl apply --server-side -f -', the manifests that run a
spindle command in N shards on a cluster: 'spindle compare' of WORKLOAD
under the policies (-w, -p, -a, --seed), or any command that takes --shard,
given whole after -- (compare, sweep, whatif, experiments):

  - a ConfigMap holding the workload; one larger than a ConfigMap holds
    (1 MiB) goes gzipped into binaryData when that fits, and otherwise is
    read from the results claim, which must then be --storage, an existing
    claim: the manifests' comments say how to copy the workload onto it
    before applying them. experiments generate their own workloads and have
    none;
  - a PersistentVolumeClaim for the results (ReadWriteMany), unless --storage
    names an existing claim every node can write;
  - an Indexed Job (completionMode Indexed, completions N): pod i runs
    'spindle COMMAND ... --shard i/N -o /results/NAME/shard-i', i taken from
    JOB_COMPLETION_INDEX; backoffLimitPerIndex (--retries) retries a failed
    shard alone, with restartPolicy Never.

Once the Job is Complete, --merge prints the Job that joins the parts with
'spindle merge' into /results/NAME/merged (for experiments, the section in
/results/NAME/EXPERIMENTS.md): what one run of the command writes, with
the workload's path in the pods as its name in the summaries.

IMAGE is the image 'go run ./hack/image' builds (spindle alone, running as
65532:65532), pushed where the cluster pulls from. See README, "Sweeps at
scale".`,
		Example: `  go run ./hack/image -o spindle-image.tar -tag registry.example/spindle:dev   # then load or push it
  spindle kube sweep -w month.json.gz -p fifo,fair,drf,dress+ --shards 8 \
      --image registry.example/spindle:dev --namespace sweeps | kubectl apply --server-side -f -
  kubectl -n sweeps wait --for=condition=Complete job/spindle-sweep --timeout=24h
  spindle kube sweep -w month.json.gz -p fifo,fair,drf,dress+ --shards 8 \
      --image registry.example/spindle:dev --namespace sweeps --merge | kubectl apply --server-side -f -

  # any command that takes --shard, after --
  spindle kube sweep --shards 4 --image registry.example/spindle:dev --name wi \
      -- whatif -w recorded.json.gz -p fifo,fair,drf,dress+
  spindle kube sweep --shards 16 --image registry.example/spindle:dev --name aa \
      -- sweep -w am-burst.yaml -p fair:max_am_share=-1 --static 0:64:1 --seeds 5
  spindle kube sweep --shards 8 --image registry.example/spindle:dev --name ex \
      -- experiments dress --seeds 5`,
		Args: func(cmd *cobra.Command, args []string) error {
			if dash := cmd.ArgsLenAtDash(); len(args) > 0 && dash != 0 {
				return usagef("unexpected argument %q: the command to shard goes after --, e.g. -- sweep -w w.yaml ...", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var idle string
			if len(args) > 0 {
				if f.workload != "" || len(pols) > 0 || cmd.Flags().Changed("admission") || cmd.Flags().Changed("seed") {
					return usagef("-w, -p, -a and --seed are compare's: with a command after --, give them there")
				}
				pc, err := podCommand(args)
				if err != nil {
					return err
				}
				s.Args, s.WorkloadFile, s.MergeFile = pc.args, pc.workload, pc.mergeFile
			} else {
				if f.workload == "" {
					return usagef("no workload: pass -w FILE (the ConfigMap carries it to the pods), or a command after --")
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
				if s.Shards > len(list) {
					idle = fmt.Sprintf("note: %d shards for %d policies: %d pods will have nothing to run\n", s.Shards, len(list), s.Shards-len(list))
				}
				s.WorkloadFile = f.workload
				s.Args = []string{"compare", "-q", "-p", strings.Join(list, ","), "-a", f.admission,
					"--seed", strconv.FormatUint(f.seed, 10)}
			}
			if !cmd.Flags().Changed("shards") {
				return usagef("--shards N is required (the number of pods)")
			}
			if s.WorkloadFile != "" {
				b, err := os.ReadFile(s.WorkloadFile)
				if err != nil {
					return fmt.Errorf("workload: %w", err)
				}
				s.Workload = b
			}
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
			pl, err := s.Place()
			if err != nil {
				return usageError{err}
			}
			fmt.Fprint(cmd.ErrOrStderr(), idle)
			writeSweepHowTo(out, s, pl)
			return kubejob.WriteYAML(out, objs...)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.workload, "workload", "w", "", "compare: workload file (YAML or JSON, format v1; .gz accepted), put in a ConfigMap")
	fl.StringSliceVarP(&pols, "policy", "p", nil, "compare: policies to compare, comma-separated")
	fl.StringVarP(&f.admission, "admission", "a", "none", "compare: admission controller of every run")
	fl.Uint64Var(&f.seed, "seed", 1, "compare: seed of every run")
	fl.IntVar(&s.Shards, "shards", 0, "number of shards: the Job's completions, one pod each")
	fl.StringVar(&s.Image, "image", "", "spindle's image, as 'go run ./hack/image' builds it")
	fl.StringVar(&s.Namespace, "namespace", s.Namespace, "namespace of every object")
	fl.StringVar(&s.Name, "name", s.Name, "name of the Job (and prefix of the other objects)")
	fl.StringVar(&s.Storage, "storage", "", "an existing ReadWriteMany PersistentVolumeClaim for the results (default: the manifests make NAME-results); required for a workload too large for a ConfigMap even gzipped")
	fl.StringVar(&s.StorageSize, "storage-size", s.StorageSize, "size of the results claim the manifests make")
	fl.IntVar(&s.Parallelism, "parallelism", 0, "shards running at once (default: all)")
	fl.IntVar(&s.BackoffLimitPerIndex, "retries", s.BackoffLimitPerIndex, "retries of a failed shard (backoffLimitPerIndex)")
	fl.StringVar(&s.CPU, "cpu", s.CPU, "CPU request of each shard's pod")
	fl.StringVar(&s.Memory, "memory", s.Memory, "memory request of each shard's pod")
	fl.BoolVar(&merge, "merge", false, "print the Job that merges the shards' parts instead (apply it once the sweep's Job is Complete)")
	return cmd
}

// podCommand is a command given after -- to 'kube sweep', checked and made
// ready for the pods: its workload taken out (the manifests put it where
// the pods read it), -q added where the command has it.
type podCmd struct {
	args      []string
	workload  string
	mergeFile string
}

// shardable are the commands that take --shard, with how each is built.
var shardable = map[string]func() *cobra.Command{
	"compare": newCompare, "sweep": newSweep, "whatif": newWhatif, "experiments": newExperiments,
}

func podCommand(args []string) (podCmd, error) {
	name := args[0]
	mk, ok := shardable[name]
	if !ok {
		return podCmd{}, usagef("%q after --: want a command that takes --shard: compare, sweep, whatif or experiments", name)
	}
	var pc podCmd
	rest := []string{name}
	for i := 1; i < len(args); i++ {
		a := args[i]
		flag, val, hasVal := strings.Cut(a, "=")
		switch {
		case a == "-w" || a == "--workload":
			if i+1 == len(args) {
				return podCmd{}, usagef("%s %s: no file after it", name, a)
			}
			i++
			pc.workload = args[i]
			continue
		case hasVal && (flag == "-w" || flag == "--workload"):
			pc.workload = val
			continue
		case strings.HasPrefix(a, "-w") && !strings.HasPrefix(a, "--"):
			pc.workload = a[2:]
			continue
		case flag == "--shard" || flag == "-o" || flag == "--out" || (strings.HasPrefix(a, "-o") && !strings.HasPrefix(a, "--")):
			return podCmd{}, usagef("%s %s: the Job sets --shard and -o itself", name, a)
		case flag == "--trace":
			return podCmd{}, usagef("%s --trace: convert the trace to a workload first ('spindle trace convert'), then pass it with -w", name)
		case flag == "--print" || flag == "--cpuprofile" || flag == "--memprofile":
			return podCmd{}, usagef("%s %s: a shard writes only its part, under -o", name, flag)
		}
		rest = append(rest, a)
	}
	// The command's own parser checks the rest: a misspelt flag fails here,
	// not in every pod.
	c := mk()
	if err := c.ParseFlags(rest[1:]); err != nil {
		return podCmd{}, usagef("%s: %v", name, err)
	}
	if c.Args != nil {
		if err := c.Args(c, c.Flags().Args()); err != nil {
			return podCmd{}, usagef("%s: %v", name, err)
		}
	}
	switch name {
	case "experiments":
		if pc.workload != "" {
			return podCmd{}, usagef("experiments generate their own workloads: no -w")
		}
		if _, ok := experiments.Lookup(c.Flags().Arg(0)); !ok {
			return podCmd{}, usagef("experiments: unknown experiment %q", c.Flags().Arg(0))
		}
		if c.Flags().Arg(0) == "traces" {
			// Every shard and the merge would fail on the missing log.
			return podCmd{}, usagef("experiments traces reads the NASA iPSC log ($%s), which the image does not carry: run its shards where the log is, and merge them with 'spindle merge'", traces.NASAEnv)
		}
		pc.mergeFile = "EXPERIMENTS.md"
	default:
		if pc.workload == "" {
			return podCmd{}, usagef("%s: no workload: pass -w FILE after %s (the manifests carry it to the pods)", name, name)
		}
	}
	if c.Flags().Lookup("quiet") != nil && !c.Flags().Changed("quiet") {
		rest = append([]string{name, "-q"}, rest[1:]...)
	}
	pc.args = rest
	return pc, nil
}

func claimName(s kubejob.Spec) string {
	if s.Storage != "" {
		return s.Storage
	}
	return s.Name + "-results"
}

// writeSweepHowTo heads the manifests with how to run and merge them, as
// YAML comments so the stream still applies as it is.
func writeSweepHowTo(out io.Writer, s kubejob.Spec, pl kubejob.Placement) {
	fmt.Fprintf(out, "# spindle %s: %d shards of 'spindle %s' as the Indexed Job %s/%s.\n", version(), s.Shards, s.Args[0], s.Namespace, s.Name)
	fmt.Fprintf(out, "# Each shard writes %s on claim %s.\n", s.PartDir("<i>"), claimName(s))
	if pl.Gzipped && !pl.OnClaim {
		fmt.Fprintf(out, "# The workload (%d bytes) is gzipped into the ConfigMap's binaryData (%d bytes) to fit; the shards read %s.\n",
			len(s.Workload), len(pl.Data), pl.Path)
	}
	if pl.OnClaim {
		local := s.WorkloadFile
		if pl.Gzipped {
			local = "<(gzip -9 -c " + s.WorkloadFile + ")"
			fmt.Fprintf(out, "# The workload is too large for a ConfigMap, even gzipped (%d bytes): the shards read\n", len(pl.Data))
		} else {
			fmt.Fprintf(out, "# The workload is too large for a ConfigMap (%d bytes): the shards read\n", len(pl.Data))
		}
		fmt.Fprintf(out, `# %s on claim %s. Copy it there BEFORE applying, through
# a pod that mounts the claim (any image with a shell):
#   kubectl -n %s run %s-upload --image=busybox:1.37 --restart=Never #     --overrides='{"spec":{"securityContext":{"runAsUser":%d,"runAsGroup":%d,"fsGroup":%d},"volumes":[{"name":"r","persistentVolumeClaim":{"claimName":"%s"}}],"containers":[{"name":"u","image":"busybox:1.37","command":["sleep","3600"],"volumeMounts":[{"name":"r","mountPath":"%s"}]}]}}'
#   kubectl -n %s wait --for=condition=Ready pod/%s-upload
#   kubectl -n %s exec %s-upload -- mkdir -p %s
#   kubectl -n %s exec -i %s-upload -- sh -c 'cat > %s' < %s
#   kubectl -n %s delete pod/%s-upload
`, pl.Path, claimName(s), s.Namespace, s.Name, kubejob.User, kubejob.User, kubejob.User, claimName(s), kubejob.ResultsDir,
			s.Namespace, s.Name, s.Namespace, s.Name, s.ClaimWorkloadDir(), s.Namespace, s.Name, pl.Path, local, s.Namespace, s.Name)
	}
	fmt.Fprintf(out, `#   kubectl apply --server-side -f THIS_FILE
# (server-side: a client-side apply copies the object into an annotation,
# and annotations hold 256 KiB, less than a workload's ConfigMap may)
#   kubectl -n %s wait --for=condition=Complete job/%s --timeout=24h
# Then merge: run this command again with --merge and apply its Job; the
# merged run (what one 'spindle %s' writes) is %s on the claim.
# A shard that failed more than %d times leaves the Job Failed: see
#   kubectl -n %s get job/%s -o jsonpath='{.status.failedIndexes}'
`, s.Namespace, s.Name, s.Args[0], s.MergedDir(), s.BackoffLimitPerIndex, s.Namespace, s.Name)
}
