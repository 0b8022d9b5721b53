// Package layers holds no code: its test enforces the import layers that
// README's "Architecture" section draws, the way kube-scheduler's
// .import-restrictions files do. From the bottom up:
//
//   - the core: clock, resource, cluster, sched (the resource manager), and
//     params, workload and metrics beside it;
//   - the schemes: policy/... and admission/..., which see only the core;
//   - the drivers: sim and kube/..., which see the core and never a scheme
//     or each other (they get factories, sched.PolicyFactory, from above);
//   - the assemblies: runner, scenario, trace, report, experiments, and
//     shard (splitting a sweep across processes and joining the parts);
//   - the command line, internal/cli, which nothing imports but cmd/spindle.
//
// Test harnesses (sched/schedtest, sched/fakecluster, kube/kubescript,
// runner/simtest, runner/wlgen, internal/datadriven,
// internal/controlplane/...) sit next to what they test and are imported
// only by tests and hack/ tools.
package layers
