package autoadmin

import (
	"fmt"
	"strings"

	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// WaitReason says why ARC holds job j, in the terms of Alg. 3, per dimension
// it tests: what AMs leave of C_R, what j's AM needs, and the reserve R_R
// kept for task containers. A live driver shows it on the job's AM pod.
func (c *Controller) WaitReason(j *sched.Job) string {
	capacity, reserve := c.predict()
	am := j.Spec().AM
	var parts []string
	for _, d := range c.cfg.Dims {
		left := capacity[d] - c.amHeld[d]
		parts = append(parts, fmt.Sprintf("%s %s left after admitted AMs, AM needs %s, reserve R_R = %s for tasks",
			d.Name(), amount(d, left), amount(d, am[d]), amount(d, reserve[d])))
	}
	return "AutoAdmin: " + strings.Join(parts, "; ")
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
	c.amHeld = c.amHeld.Add(j.Spec().AM)
	c.running++
	c.waiting--
	c.note()
}
