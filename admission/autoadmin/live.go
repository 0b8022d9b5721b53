package autoadmin

import (
	"fmt"
	"strings"

	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// WaitReason says why ARC holds job j, in the terms of Alg. 3, for each
// dimension whose test fails: what AMs leave of C_R, what j's AM needs, and
// the reserve R_R kept for task containers; or, when ARC would admit j, that
// the deadlock guard holds it. A live driver shows it on the job's AM pod.
func (c *Controller) WaitReason(j *sched.Job) string {
	capacity, reserve := c.predict()
	am := admitHeld(j)
	needs := "AM needs"
	if j.IsGang() {
		needs = "gang minimum needs"
	}
	var parts []string
	for _, d := range c.cfg.Dims {
		left := capacity[d] - c.amHeld[d]
		if left-am[d] >= reserve[d] {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s left after admitted AMs, %s %s, reserve R_R = %s for tasks",
			d.Name(), amount(d, left), needs, amount(d, am[d]), amount(d, reserve[d])))
	}
	if len(parts) > 0 {
		return "AutoAdmin: " + strings.Join(parts, "; ")
	}
	if why := c.poolReason(j); why != "" {
		return why
	}
	if c.backlog != nil && c.backlogN > c.v.Cluster().NumNodes() {
		return fmt.Sprintf("AutoAdmin: %d task containers of admitted jobs wait for room, more than one per node", c.backlogN)
	}
	if c.guard != nil && !c.wouldAdmit(j) {
		return "AutoAdmin: deadlock guard: with this AM admitted, the admitted jobs' tasks might fit beside the AMs on no node; waits for an admitted job to end"
	}
	// Nothing refuses it now: the core asks again on the next change.
	return "AutoAdmin: admissible now; admitted at the next retry"
}

func amount(d resource.Dim, v int64) string {
	if d == resource.VCores {
		return resource.FormatVCores(v)
	}
	return fmt.Sprint(v)
}

// JobAdopted counts a job admitted because its containers were found
// running, as Admit counts the jobs it lets in: its AM is held for ARC.
func (c *Controller) JobAdopted(j *sched.Job) {
	c.holdAdmitted(j)
	c.running++
	c.waiting--
	c.note()
}
