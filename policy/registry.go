package policy

import (
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/policy/adaptive"
	"github.com/spindle-sched/spindle/policy/capacity"
	"github.com/spindle-sched/spindle/policy/djsf"
	"github.com/spindle-sched/spindle/policy/dress"
	"github.com/spindle-sched/spindle/policy/fair"
	"github.com/spindle-sched/spindle/policy/fifo"
	"github.com/spindle-sched/spindle/policy/kubescheduler"
	"github.com/spindle-sched/spindle/policy/sjf"
	"github.com/spindle-sched/spindle/policy/tetris"
	"github.com/spindle-sched/spindle/sched"
)

// How the policies read the queue tree and job priorities, for the
// listing (docs/queues.md says it at length).
const (
	ignoreQueues   = "ignored: one order over every leaf's jobs, as the paper has it (it has no queues)"
	ignorePriority = "ignored"
	priorityInLeaf = "orders jobs within a leaf queue, higher first, then submission order (YARN's application priority under the FIFO ordering policy); never orders queues"
	priorityFair   = "orders jobs within a leaf queue, every job of a higher priority before any of a lower one, fair shares among jobs of equal priority (YARN Fair multiplies a job's weight by its priority instead, which a Kubernetes priority cannot be); never orders queues"
	dressQueues    = "ignored: the two pools (small and large jobs) span the whole cluster, not a leaf: δ is a share of the cluster (Tot_R), re-tuned from every job's pending demand and the cluster's predicted releases, as the paper defines it on one cluster with no queues; splitting the pools per leaf would need a guarantee the paper does not give"
)

// builtin lists every policy, in the order `spindle policies` shows them:
// YARN's baselines and Kubernetes', then DRESS, then DJSF and its baselines, then the
// Adaptive line. Adding a policy is adding an entry here.
var builtin = params.NewRegistry("policy",
	Entry{Name: "fifo",
		Summary:  "first in, first out: every free resource goes to the earliest job that can use it",
		Queues:   "ignored: one first-in-first-out order over every leaf's jobs",
		Priority: "higher first, then submission order, over every job (YARN's application priority)",
		Build: func(r *params.Reader) (sched.PolicyFactory, error) {
			cfg := fifo.Params(r)
			return func(v *sched.View) (sched.Policy, error) { return fifo.New(v, cfg), nil }, nil
		}},
	Entry{Name: "capacity",
		Summary: "YARN Capacity: queues with guaranteed and maximum capacity, most under-served queue first, FIFO inside a queue, AM limit per queue",
		Queues: "the whole tree: at every level the child most under-served (used share over absolute capacity) first, each queue and its ancestors capped by max_capacity, so an idle queue's share goes first to its siblings; weights ignored; " +
			"a queue of capacity 0 comes after every sibling with a guarantee (by usage among such queues); " +
			"preemption (preemption=on|observe) takes nothing from a queue with disable_preemption (or below one), and " +
			"gives a leaf at most the larger of its guarantee and its usage unless preempt_balance=on",
		Priority: priorityInLeaf,
		Build: func(r *params.Reader) (sched.PolicyFactory, error) {
			cfg := capacity.Params(r)
			return func(v *sched.View) (sched.Policy, error) { return capacity.New(v, cfg), nil }, nil
		}},
	Entry{Name: "fair",
		Summary: "YARN Fair: the job furthest below its instantaneous fair share (memory) first, AM share limit under the run's resource calculator",
		Queues: "the whole tree: at every level the child furthest below its fair share (usage over weight; weight defaults to capacity) first; a queue's AM limit is max_am_share of its instantaneous fair share; max_capacity not enforced; " +
			"a queue of capacity 0 and no weight comes after every sibling with one; preemption (preemption=on|observe) " +
			"takes nothing from a queue with disable_preemption (or below one) and balances to fair shares (no preempt_balance)",
		Priority: priorityFair,
		Build: func(r *params.Reader) (sched.PolicyFactory, error) {
			cfg := fair.Params(r, fair.Memory)
			return func(v *sched.View) (sched.Policy, error) { return fair.New(v, cfg), nil }, nil
		}},
	Entry{Name: "drf",
		Summary:  "dominant resource fairness: the job with the lowest dominant share first, AM share limit checked in every resource whatever the run's resource calculator (deliberately: as YARN's Fair scheduler under its drf policy)",
		Queues:   "as fair, shares measured in the dominant resource",
		Priority: priorityFair,
		Build: func(r *params.Reader) (sched.PolicyFactory, error) {
			cfg := fair.Params(r, fair.DRF)
			return func(v *sched.View) (sched.Policy, error) { return fair.New(v, cfg), nil }, nil
		}},
	Entry{Name: "kube-scheduler",
		Summary:  "Kubernetes' default scheduler: pods one at a time in creation order (its backoff reorders those that found no room), each to the least-allocated, best-balanced node, bound through its client's rate limit (50 a second past a burst of 100); no queues, no AM limit. The baseline 'spindle whatif' reproduces a recording with",
		Queues:   "ignored: one queue of pods over every leaf's jobs, as kube-scheduler has no queues",
		Priority: "higher first, then creation order, over every pod, as kube-scheduler's PrioritySort queue; preemption by priority is not modelled",
		Build: func(r *params.Reader) (sched.PolicyFactory, error) {
			cfg := kubescheduler.Params(r)
			return func(v *sched.View) (sched.Policy, error) { return kubescheduler.New(v, cfg), nil }, nil
		}},
	Entry{Name: "dress",
		Summary:  "DRESS (Mao et al.): small- and large-demand pools, FIFO inside each; the small jobs' reserve ratio δ re-tuned every interval from pending demand and releases predicted from observed container transitions (dress:estimator=off is the ablation)",
		Queues:   dressQueues,
		Priority: ignorePriority,
		Build: func(r *params.Reader) (sched.PolicyFactory, error) {
			cfg := dress.Params(r, dress.Defaults)
			return func(v *sched.View) (sched.Policy, error) { return dress.New(v, cfg) }, nil
		}},
	Entry{Name: "dress+",
		Summary:  "DRESS improved: pending demand counts only when it can take a container (demand=usable), a pool's unused room is lent to the other and returned as the borrowed containers end (lend=on), each category keeps a floor share while it has demand (floor=0.2), releases estimated from observed per-phase task durations (release=phase)",
		Queues:   dressQueues,
		Priority: ignorePriority,
		Build: func(r *params.Reader) (sched.PolicyFactory, error) {
			cfg := dress.Params(r, dress.PlusDefaults)
			return func(v *sched.View) (sched.Policy, error) { return dress.New(v, cfg) }, nil
		}},
	Entry{Name: "sjf",
		Summary:         "shortest estimated job first (estimates from --estimates), work-conserving; jobs without an estimate last",
		WithoutEstimate: "ranks them after every job with an estimate, in submission order, so that with none at all it is FIFO",
		Queues:          ignoreQueues,
		Priority:        "higher first, then shortest estimate, over every job (the one ordered policy FIFO is too)",
		Build: func(r *params.Reader) (sched.PolicyFactory, error) {
			cfg := sjf.Params(r)
			return func(v *sched.View) (sched.Policy, error) { return sjf.New(v, cfg), nil }, nil
		}},
	Entry{Name: "tetris",
		Summary:         "Tetris (Grandl et al., SIGCOMM 2014): best alignment of request and node free resources plus ε × shortest remaining work, fairness knob f; AM limit checked in every resource whatever the run's resource calculator (deliberately: a multi-resource packer)",
		WithoutEstimate: "takes their task durations only from tasks seen to end (the phase's, the job's, then the cluster's mean, else 1 s), so that its remaining-work term ranks new jobs by their task count and size, not by their runtime",
		Queues:          ignoreQueues,
		Priority:        ignorePriority,
		Build: func(r *params.Reader) (sched.PolicyFactory, error) {
			cfg := tetris.Params(r)
			return func(v *sched.View) (sched.Policy, error) { return tetris.New(v, cfg), nil }, nil
		}},
	Entry{Name: "djsf",
		Summary:         "Densest-Job-Set-First: k-means on predicted JCT, jobs packed into sets that fit the cluster, densest set (jobs / span) first, re-planned online",
		WithoutEstimate: "plans them after every job set, in submission order, so that with none at all it is FIFO",
		Queues:          ignoreQueues,
		Priority:        ignorePriority,
		Build: func(r *params.Reader) (sched.PolicyFactory, error) {
			cfg := djsf.Params(r, djsf.Faithful)
			return func(v *sched.View) (sched.Policy, error) { return djsf.New(v, cfg), nil }, nil
		}},
	Entry{Name: "djsf+",
		Summary:         "DJSF improved: re-plans running jobs with their remaining time and demand, ranks sets by jobs per unit of cluster-time (djsf:progress=true,density=area)",
		WithoutEstimate: "plans them after every job set, in submission order, so that with none at all it is FIFO",
		Queues:          ignoreQueues,
		Priority:        ignorePriority,
		Build: func(r *params.Reader) (sched.PolicyFactory, error) {
			cfg := djsf.Params(r, djsf.Plus)
			return func(v *sched.View) (sched.Policy, error) { return djsf.New(v, cfg), nil }, nil
		}},
	Entry{Name: "adaptive",
		Summary:         "Adaptive Scheduler: completion-time goals; each cycle s_req = tasks needed in parallel to meet the goal, placement maximises the lowest utility; ignores external load",
		WithoutEstimate: "knows no task length for them until their first task ends and, for a job with a goal, asks for every task it could run until then",
		Queues:          ignoreQueues,
		Priority:        ignorePriority,
		Build: func(r *params.Reader) (sched.PolicyFactory, error) {
			cfg := adaptive.Params(r, adaptive.Adaptive)
			return func(v *sched.View) (sched.Policy, error) { return adaptive.New(v, cfg), nil }, nil
		}},
	Entry{Name: "reverse-adaptive",
		Summary:         "Reverse-Adaptive: as adaptive, but s_fit from a reverse placement of all jobs' remaining work into the capacity the forecast external load leaves, and placement that keeps room for that load",
		WithoutEstimate: "knows no task length for them until their first task ends and, for a job with a goal, asks for every task it could run until then",
		Queues:          ignoreQueues,
		Priority:        ignorePriority,
		Build: func(r *params.Reader) (sched.PolicyFactory, error) {
			cfg := adaptive.Params(r, adaptive.Reverse)
			return func(v *sched.View) (sched.Policy, error) { return adaptive.New(v, cfg), nil }, nil
		}},
	Entry{Name: "adaptive+",
		Summary:  "Reverse-Adaptive with triage: jobs that cannot meet their goal even alone yield; the others go least laxity first, each its s_fit, then all it can use (reverse-adaptive:triage=true)",
		Queues:   ignoreQueues,
		Priority: ignorePriority,
		Build: func(r *params.Reader) (sched.PolicyFactory, error) {
			cfg := adaptive.PlusParams(r)
			return func(v *sched.View) (sched.Policy, error) { return adaptive.New(v, cfg), nil }, nil
		}},
)
