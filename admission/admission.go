// Package admission holds the admission controllers that decide which
// submitted jobs may start their ApplicationMaster, and the registry that
// builds one from a command-line spec ("none", "static:<vcores>",
// "autoadmin:key=value,..."). Each controller registers itself from its own
// file in this package.
package admission

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// Factory builds a controller against the core's view; nil means "none".
type Factory func(v *sched.View) (sched.Admission, error)

// Entry describes one controller.
type Entry struct {
	Name    string // as typed: "none", "static:<vcores>"
	Summary string
	Rank    int
	// Build parses the text after "name:" (hasArg tells whether there was
	// a colon at all).
	Build func(arg string, hasArg bool) (Factory, error)
}

var entries []Entry

func register(e Entry) {
	entries = append(entries, e)
	sort.SliceStable(entries, func(a, b int) bool { return entries[a].Rank < entries[b].Rank })
}

// Entries lists the controllers.
func Entries() []Entry { return entries }

func (e Entry) base() string { name, _, _ := strings.Cut(e.Name, ":"); return name }

// Parse turns a spec into a factory. The empty spec means "none".
func Parse(spec string) (Factory, error) {
	spec = strings.TrimSpace(spec)
	name, arg, hasArg := strings.Cut(spec, ":")
	if name == "" {
		name = "none"
	}
	var known []string
	for _, e := range entries {
		if e.base() == name {
			return e.Build(strings.TrimSpace(arg), hasArg)
		}
		known = append(known, e.Name)
	}
	return nil, fmt.Errorf("unknown admission controller %q (known: %s)", name, strings.Join(known, ", "))
}

func init() {
	register(Entry{Name: "none", Rank: 10, Summary: "admit every job at once (YARN's default)",
		Build: func(_ string, hasArg bool) (Factory, error) {
			if hasArg {
				return nil, fmt.Errorf("admission none takes no argument")
			}
			return nil, nil
		}})
	register(Entry{Name: "static:<vcores>", Rank: 20,
		Summary: "keep <vcores> of the cluster for task containers: a job's AM is admitted only while AMs leave that much free (AutoAdmin's static reservation)",
		Build: func(arg string, hasArg bool) (Factory, error) {
			if !hasArg {
				return nil, fmt.Errorf("admission static needs an amount: static:<vcores>, e.g. static:32")
			}
			vc, err := strconv.ParseFloat(arg, 64)
			if err != nil || vc < 0 || math.IsInf(vc, 0) || vc != vc {
				return nil, fmt.Errorf("admission static: %q is not a non-negative number of vcores", arg)
			}
			milli := int64(math.Round(vc * resource.MilliPerVCore))
			return func(v *sched.View) (sched.Admission, error) {
				return &Static{v: v, Reserve: milli}, nil
			}, nil
		}})
}

// Static keeps a fixed amount of vcores for task containers: a waiting job
// is admitted only if, after its AM, the vcores not held by AMs still cover
// the reservation (C_R − TotalAMC_R − AM_J ≥ R_R, AutoAdmin's ARC with a
// constant R_R). Only admitted AMs count, whether or not they run yet.
type Static struct {
	v       *sched.View
	Reserve int64 // milli-vcores
	amHeld  int64 // milli-vcores of AMs admitted and not ended
}

// Admit applies the reservation.
func (s *Static) Admit(j *sched.Job) bool {
	total := s.v.Cluster().Capacity()[resource.VCores]
	am := j.Spec().AM[resource.VCores]
	if total-s.amHeld-am < s.Reserve {
		return false
	}
	s.amHeld += am
	return true
}

// ContainerChanged returns an AM's vcores to the pool when its container
// ends. A reservation for an AM that is cancelled never held anything: the
// job stays admitted and its AM still counts.
func (s *Static) ContainerChanged(c *sched.Container, from sched.ContainerState) {
	if c.IsAM() && c.State().Terminal() && from != sched.Reserved && from != sched.New {
		s.amHeld -= c.Request()[resource.VCores]
	}
}

// WaitReason says why job j waits: the static reservation in the numbers
// Admit compares (sched.Explainer, shown on a live job's pending AM).
func (s *Static) WaitReason(j *sched.Job) string {
	total := s.v.Cluster().Capacity()[resource.VCores]
	am := j.Spec().AM[resource.VCores]
	return fmt.Sprintf("static reservation: %s of %s vcores kept for tasks; admitted AMs hold %s, this AM needs %s (admitted when %s − AMs − AM ≥ %s, in submission order)",
		resource.FormatVCores(s.Reserve), resource.FormatVCores(total), resource.FormatVCores(s.amHeld), resource.FormatVCores(am),
		resource.FormatVCores(total), resource.FormatVCores(s.Reserve))
}
