package dress

import (
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// The re-tune (Algorithm 3, every interval) used to gather its inputs by
// walking every unfinished job and to copy and sort their demands: on a
// months-long trace with a long queue that was 99 % of a run's time. It now
// works from state kept as jobs change:
//
//   - each category's pending demands r_i are a sorted multiset, updated
//     for the jobs that changed since the last re-tune (marked by the
//     observers, refreshed at the tick, when the job's state has settled);
//   - the release forecast F asks only the jobs the estimator tracks (those
//     with task containers started), not every queued job;
//   - with demand=usable, the jobs waiting for their ApplicationMaster are
//     walked in order only while an AM could still fit the AM limit;
//   - Algorithm 3 walks the sorted demands only as far as they fit, since
//     the first that does not fit ends each of its loops.
//
// Every quantity is the one the full walk computed, in the same
// floating-point order, so δ is the same bit for bit: inputsFull is kept as
// the reference, and tests run both on every tick (verifyRetune).

// demandSet is a multiset of demands in units, ascending, with their sum.
type demandSet struct {
	vals []int64 // distinct values, ascending
	cnt  []int   // copies of each
	n    int     // copies in all
	sum  int64
}

func (s *demandSet) add(v int64) {
	i, found := slices.BinarySearch(s.vals, v)
	if found {
		s.cnt[i]++
	} else {
		s.vals = slices.Insert(s.vals, i, v)
		s.cnt = slices.Insert(s.cnt, i, 1)
	}
	s.n++
	s.sum += v
}

func (s *demandSet) remove(v int64) {
	i, found := slices.BinarySearch(s.vals, v)
	if !found {
		panic(fmt.Sprintf("dress: demand %d not in the set", v))
	}
	if s.cnt[i]--; s.cnt[i] == 0 {
		s.vals = slices.Delete(s.vals, i, i+1)
		s.cnt = slices.Delete(s.cnt, i, i+1)
	}
	s.n--
	s.sum -= v
}

// where a job's demand is kept between re-tunes.
const (
	nowhere  uint8 = iota
	inDemand       // in its category's demandSet, as counted
	inAMWait       // demand=usable: waiting for its AM, in amWait
)

// retune is the state the re-tune works from.
type retune struct {
	demand [2]demandSet
	// amWait holds, by category and in submission order, the jobs that
	// wait for their ApplicationMaster (demand=usable only): whether they
	// count depends on the AM limit at the tick.
	amWait [2][]sched.JobID
	// amFloor is the least AM, per resource, of every job that waited for
	// one: when it no longer fits what the AM limit leaves, no waiting AM
	// does.
	amFloor    resource.Vector
	amFloorSet bool
	// tracked holds, by category and in submission order, the jobs whose
	// releases the estimator forecasts (those with a task started).
	tracked [2][]sched.JobID
	dirty   []sched.JobID
	temp    []int64 // scratch: AM-waiting demands counted at this tick
}

// touch marks job j for a refresh at the next re-tune.
func (p *Policy) touch(j *sched.Job) {
	info := &p.jobs[j.ID()]
	if !info.dirty {
		info.dirty = true
		p.rt.dirty = append(p.rt.dirty, j.ID())
	}
}

// track adds job j to the jobs whose releases are forecast.
func (p *Policy) track(j *sched.Job, cat Category) {
	if info := &p.jobs[j.ID()]; !info.tracked {
		info.tracked = true
		p.rt.tracked[cat] = insertID(p.rt.tracked[cat], j.ID())
	}
}

func insertID(ids []sched.JobID, id sched.JobID) []sched.JobID {
	if n := len(ids); n == 0 || ids[n-1] < id {
		return append(ids, id) // jobs mostly start in submission order
	}
	i := sort.Search(len(ids), func(k int) bool { return ids[k] >= id })
	return slices.Insert(ids, i, id)
}

func deleteID(ids []sched.JobID, id sched.JobID) []sched.JobID {
	i := sort.Search(len(ids), func(k int) bool { return ids[k] >= id })
	if i < len(ids) && ids[i] == id {
		return slices.Delete(ids, i, i+1)
	}
	return ids
}

// refresh files job j where the re-tune counts it, from its state now:
// the classification of inputsFull, one job at a time.
func (p *Policy) refresh(j *sched.Job) {
	info := &p.jobs[j.ID()]
	info.dirty = false
	cat := info.cat
	switch info.where {
	case inDemand:
		p.rt.demand[cat].remove(info.counted)
	case inAMWait:
		p.rt.amWait[cat] = deleteID(p.rt.amWait[cat], j.ID())
	}
	info.where, info.counted = nowhere, 0
	if j.State() == sched.Finished {
		if info.tracked {
			info.tracked = false
			p.rt.tracked[cat] = deleteID(p.rt.tracked[cat], j.ID())
		}
		return
	}
	if p.cfg.Usable {
		switch j.State() {
		case sched.Waiting:
			return
		case sched.Admitted:
			if j.AM() == nil {
				p.rt.amWait[cat] = insertID(p.rt.amWait[cat], j.ID())
				info.where = inAMWait
				am := j.Spec().AM
				if !p.rt.amFloorSet {
					p.rt.amFloor, p.rt.amFloorSet = am, true
				} else {
					p.rt.amFloor = p.rt.amFloor.Min(am)
				}
				return
			}
		}
	}
	if r := p.remaining(j); r > 0 {
		p.rt.demand[cat].add(r)
		info.where, info.counted = inDemand, r
	}
}

// inputsFast gathers Algorithm 3's inputs from the kept state. The AM-waiting
// jobs that count at this tick are added to the demand sets; the caller
// takes them out again with untemp once Algorithm 3 has run.
func (p *Policy) inputsFast(now clock.Time) inputs {
	for _, id := range p.rt.dirty {
		p.refresh(p.v.Job(id))
	}
	p.rt.dirty = p.rt.dirty[:0]
	in := inputs{AdjustInput: AdjustInput{Delta: p.delta, Total: float64(Total)}}
	sdLimit, ldLimit := p.limit()
	ac := p.available()
	a1 := min(max(0, sdLimit-p.pools[SD].used), ac)
	a2 := min(max(0, ldLimit-p.pools[LD].used), ac-a1)
	in.A1, in.A2 = float64(a1), float64(a2)
	var f [2]float64
	for cat := range p.rt.tracked {
		for _, id := range p.rt.tracked[cat] {
			// The same sums as the full walk: jobs it skips add
			// nothing (an untracked job forecasts 0), and the order of
			// those it adds is kept.
			if p.est != nil {
				n, u := p.est.Predict(int(id), now, p.horizon)
				f[cat] += u
				in.predicted += n
			}
			if p.phEst != nil {
				n, u := p.phEst.Predict(int(id), now, p.horizon)
				f[cat] += u
				in.predicted += n
			}
		}
	}
	if p.cfg.Usable && (len(p.rt.amWait[SD]) > 0 || len(p.rt.amWait[LD]) > 0) {
		amUsed := p.v.Cluster().AMAllocated()
	walk:
		for cat := range p.rt.amWait {
			for _, id := range p.rt.amWait[cat] {
				if !p.rt.amFloor.Fits(p.v.AMRoom(p.amLimit, amUsed)) {
					// No waiting AM is smaller than the floor: none
					// fits any more, as the room only shrinks while
					// amUsed grows.
					break walk
				}
				j := p.v.Job(id)
				if !p.usable(j, &amUsed) {
					continue
				}
				if r := p.remaining(j); r > 0 {
					p.rt.demand[cat].add(r)
					p.rt.temp = append(p.rt.temp, int64(cat), r)
				}
			}
		}
	}
	p.constRelease(&f, &in.predicted)
	in.F1, in.F2 = f[SD], f[LD]
	return in
}

// untemp takes the AM-waiting demands inputsFast counted out of the sets.
func (p *Policy) untemp() {
	for i := 0; i < len(p.rt.temp); i += 2 {
		p.rt.demand[p.rt.temp[i]].remove(p.rt.temp[i+1])
	}
	p.rt.temp = p.rt.temp[:0]
}

// adjustSets is Adjust over the demand sets: the same operations in the same
// order, each loop stopped where Adjust's stops changing anything. Adjust's
// first loop takes small jobs in ascending order while they fit, and once
// one does not, none after it does (what is left stays, and they are no
// smaller); its second loop likewise; its third walks the small jobs that
// did not fit, from the first, until one does not fit.
func adjustSets(in AdjustInput, sd, ld *demandSet) (float64, Branch) {
	// Sums of whole units are exact in float64 in any order.
	p1, p2 := float64(sd.sum), float64(ld.sum)
	delta := in.Delta
	if in.A1+in.F1 >= p1 {
		return delta - (in.A1+in.F1-p1)/in.Total, SDSurplus
	}
	if in.A2+in.F2 >= p2 {
		return delta + (in.A2+in.F2-p2)/in.Total, LDSurplus
	}
	a1, a2 := in.A1+in.F1, in.A2+in.F2
	// Small jobs that fit, ascending; (i, k) is the first that does not.
	i, k := 0, 0
small:
	for ; i < len(sd.vals); i++ {
		r := float64(sd.vals[i])
		for k = 0; k < sd.cnt[i]; k++ {
			if r > a1 {
				break small
			}
			a1 -= r
		}
	}
large:
	for x := range ld.vals {
		r := float64(ld.vals[x])
		for range ld.cnt[x] {
			if r > a2 {
				break large
			}
			a2 -= r
		}
	}
	for ; i < len(sd.vals); i, k = i+1, 0 {
		r := float64(sd.vals[i])
		for ; k < sd.cnt[i]; k++ {
			if r > a1+a2 {
				return delta, Packing
			}
			fromLD := r - a1
			a1 = 0
			a2 -= fromLD
			delta += fromLD / in.Total
		}
	}
	return delta, Packing
}

// verifyRetune makes every re-tune also run the full walk and compare:
// tests set it; a mismatch is kept in retuneMismatch.
var (
	verifyRetune   bool
	retuneMu       sync.Mutex
	retuneMismatch error
)

// verify compares the fast inputs and result with the full walk's.
func (p *Policy) verify(now clock.Time, fast inputs, delta float64, branch Branch) {
	full := p.inputsFull(now)
	var sd, ld []float64
	for cat, out := range [2]*[]float64{&sd, &ld} {
		s := &p.rt.demand[cat]
		for i, v := range s.vals {
			for range s.cnt[i] {
				*out = append(*out, float64(v))
			}
		}
	}
	fsd := slices.Sorted(slices.Values(full.SD))
	fld := slices.Sorted(slices.Values(full.LD))
	fd, fb := Adjust(full.AdjustInput)
	var err error
	switch {
	case full.A1 != fast.A1 || full.A2 != fast.A2 || full.F1 != fast.F1 || full.F2 != fast.F2 || full.predicted != fast.predicted:
		err = fmt.Errorf("at %v: A, F or predicted differ: full %+v, fast %+v", now, full, fast)
	case !slices.Equal(fsd, sd) || !slices.Equal(fld, ld):
		err = fmt.Errorf("at %v: demands differ: full %v %v, fast %v %v", now, fsd, fld, sd, ld)
	case fd != delta || fb != branch:
		err = fmt.Errorf("at %v: Algorithm 3 differs: full %v %v, fast %v %v", now, fd, fb, delta, branch)
	}
	if err != nil {
		retuneMu.Lock()
		if retuneMismatch == nil {
			retuneMismatch = err
		}
		retuneMu.Unlock()
	}
}
