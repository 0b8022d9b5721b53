package record

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/spindle-sched/spindle/clock"
)

func withAnnotations(kv ...string) podOpt {
	return func(p *v1.Pod) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		for i := 0; i < len(kv); i += 2 {
			p.Annotations[kv[i]] = kv[i+1]
		}
	}
}

// Groups are kept: pods of one Volcano PodGroup and of one YuniKorn
// application are one job each, as the scheduler maps them, and a gang's
// minimum becomes the job's min_members (YuniKorn's task groups summed).
func TestRecordKeepsGangGroups(t *testing.T) {
	f, buf := newFake(t, Options{Schedulers: []string{"spindle"}}, node("a", "8", "16Gi"))
	if err := f.r.Begin(at(0)); err != nil {
		t.Fatal(err)
	}
	sp := schedulerName("spindle")
	vol := withAnnotations("scheduling.k8s.io/group-name", "pg-1", "spindle.io/min-members", "2")
	f.create(at(1), "ml", "w-0", "1", "1Gi", vol, sp)
	f.create(at(1), "ml", "w-1", "1", "1Gi", vol, sp)
	f.create(at(1), "ml", "w-2", "1", "1Gi", vol, sp)
	yk := withLabels("applicationId", "app-1", "yunikorn.apache.org/queue", "root.sandbox")
	tg := withAnnotations("yunikorn.apache.org/task-groups", `[{"name":"a","minMember":1,"minResource":{"cpu":"1"}},{"name":"b","minMember":1}]`,
		"yunikorn.apache.org/schedulingPolicyParameters", "placeholderTimeoutInSeconds=30")
	f.create(at(2), "yk", "p-0", "1", "1Gi", yk, tg, sp)
	f.create(at(2), "yk", "p-1", "1", "1Gi", yk, sp)
	for _, k := range []string{"ml/w-0", "ml/w-1", "ml/w-2"} {
		f.life(k, "a", 1.5, 2, 10)
	}
	for _, k := range []string{"yk/p-0", "yk/p-1"} {
		f.life(k, "a", 2.5, 3, 12)
	}
	w, _ := f.close(at(20), buf)
	if len(w.Jobs) != 2 {
		t.Fatalf("%d jobs, want 2 (one per group): %+v", len(w.Jobs), w.Jobs)
	}
	vj, yj := job(t, w, "ml/volcano/pg-1"), job(t, w, "yk/yunikorn/app-1")
	if vj.MinMembers != 2 || vj.Tasks() != 3 {
		t.Errorf("volcano job: min_members %d, %d tasks; want 2 and 3", vj.MinMembers, vj.Tasks())
	}
	if yj.MinMembers != 2 || yj.Tasks() != 2 || yj.Queue != "root.sandbox" || yj.GangTimeout != 30*clock.Second {
		t.Errorf("yunikorn job: min_members %d, %d tasks, queue %q, gang_timeout %v; want 2, 2, root.sandbox, 30s", yj.MinMembers, yj.Tasks(), yj.Queue, yj.GangTimeout)
	}
	if vj.GangTimeout != 0 {
		t.Errorf("volcano job: gang_timeout %v, want none (its pods declare none)", vj.GangTimeout)
	}
	if err := w.Validate(); err != nil {
		t.Errorf("recorded workload invalid: %v", err)
	}
}

// A live recording applies the PodGroup objects the watch brings, seen
// before or after the pods: their minimum wins over the pods' own, and a
// Volcano queue becomes the job's.
func TestRecordAppliesPodGroups(t *testing.T) {
	f, buf := newFake(t, Options{Schedulers: []string{"spindle"}}, node("a", "8", "16Gi"))
	f.r.PodGroup([]byte(`{"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": {"namespace": "ml", "name": "pg-1"}, "spec": {"minMember": 3, "queue": "root.ml"}}`))
	if err := f.r.Begin(at(0)); err != nil {
		t.Fatal(err)
	}
	sp := schedulerName("spindle")
	vol := withAnnotations("scheduling.k8s.io/group-name", "pg-1", "spindle.io/min-members", "2")
	for _, n := range []string{"w-0", "w-1", "w-2"} {
		f.create(at(1), "ml", n, "1", "1Gi", vol, sp)
	}
	for _, n := range []string{"w-0", "w-1", "w-2"} {
		f.life("ml/"+n, "a", 1.5, 2, 10)
	}
	w, s := f.close(at(20), buf)
	vj := job(t, w, "ml/volcano/pg-1")
	if vj.MinMembers != 3 || vj.Queue != "root.ml" {
		t.Errorf("volcano job: min_members %d, queue %q; want 3, root.ml", vj.MinMembers, vj.Queue)
	}
	if s.PodGroups != 1 || s.PodGroupsUnused != 0 {
		t.Errorf("podgroups %d read, %d unused; want 1, 0", s.PodGroups, s.PodGroupsUnused)
	}
}
