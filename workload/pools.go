package workload

import (
	"sort"
	"strconv"
	"strings"
)

// Node pools: a node group's labels and taints, and a job's node selector
// and tolerations, with Kubernetes' meaning, so that a workload can say
// that some jobs may use some machines only (docs/node-pools.md).

// Taint effects, as Kubernetes names them. Only NoSchedule and NoExecute
// keep a job off a node; PreferNoSchedule is a preference the simulator
// does not score.
const (
	EffectNoSchedule       = "NoSchedule"
	EffectPreferNoSchedule = "PreferNoSchedule"
	EffectNoExecute        = "NoExecute"
)

// Toleration operators.
const (
	OpEqual  = "Equal"
	OpExists = "Exists"
)

// Taint keeps jobs that do not tolerate it off a node group.
type Taint struct {
	Key, Value, Effect string
}

// Toleration lets a job use node groups with matching taints: Key (empty
// with Exists: every key), Operator Equal (default, empty) or Exists,
// Value (Equal only) and Effect (empty: every effect).
type Toleration struct {
	Key, Operator, Value, Effect string
}

// tolerates reports whether t tolerates taint x, by Kubernetes' rules.
func (t Toleration) tolerates(x Taint) bool {
	if t.Effect != "" && t.Effect != x.Effect {
		return false
	}
	if t.Key == "" {
		return t.Operator == OpExists
	}
	if t.Key != x.Key {
		return false
	}
	if t.Operator == OpExists {
		return true
	}
	return t.Value == x.Value
}

// Admits reports whether the job may use the machines of node group g:
// its node selector matches g's labels, and it tolerates every taint of g
// whose effect is NoSchedule or NoExecute.
func (j *Job) Admits(g *NodeGroup) bool {
	for k, v := range j.NodeSelector {
		if got, ok := g.Labels[k]; !ok || got != v {
			return false
		}
	}
	for _, x := range g.Taints {
		if x.Effect != EffectNoSchedule && x.Effect != EffectNoExecute {
			continue
		}
		tolerated := false
		for _, t := range j.Tolerations {
			if t.tolerates(x) {
				tolerated = true
				break
			}
		}
		if !tolerated {
			return false
		}
	}
	return true
}

// Placed reports whether the job declares where it may run.
func (j *Job) Placed() bool { return len(j.NodeSelector) > 0 || len(j.Tolerations) > 0 }

// Pools reports whether some node group keeps off every job that does not
// tolerate its taints.
func (c *Cluster) Pools() bool { return pooled(c.Nodes) }

// PlacementKey names the job's node selector and tolerations canonically:
// jobs with the same key may use the same node groups. Empty when the job
// declares neither.
func (j *Job) PlacementKey() string {
	if !j.Placed() {
		return ""
	}
	var b strings.Builder
	for _, k := range sortedKeys(j.NodeSelector) {
		b.WriteString(strconv.Quote(k) + "=" + strconv.Quote(j.NodeSelector[k]) + ";")
	}
	b.WriteByte('|')
	for _, t := range j.Tolerations {
		b.WriteString(strconv.Quote(t.Key) + strconv.Quote(t.Operator) + strconv.Quote(t.Value) + strconv.Quote(t.Effect) + ";")
	}
	return b.String()
}

// sortedKeys returns m's keys in order, so that output and messages do not
// depend on map order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
