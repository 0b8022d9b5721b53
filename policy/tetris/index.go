package tetris

import (
	"fmt"
	"math"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/policy/internal/pq"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// The index answers a pick without scoring every runnable job.
//
// A pick's answer depends on three things: which jobs are eligible (the
// ⌈(1 − f)·N⌉ lowest in fairness order), each request shape's best task
// among them (least remaining work, then fairness), and ε, which needs the
// sums of alignment and remaining work over every eligible candidate. The
// first two are kept exactly: the eligible jobs are the smaller half of a
// pair of heaps split at the cut, and each ask key (request, AM or not) keeps
// heaps of its eligible jobs ordered by remaining work. The sums are kept as
// running totals with a bound on their rounding error.
//
// The scan sums in one particular order, and floating-point addition is not
// associative, so the totals can differ from the scan's sums in the last
// bits. They can change the answer only when two shapes' scores are that
// close; the pick then checks that its winner wins for every ε within the
// bound and, when it does not, falls back to the scan itself. Decisions are
// therefore the scan's, bit for bit; the fallback is rare (a test counts it).
//
// A job whose remaining work is taken from the cluster-wide mean task
// duration (no estimate, no task of its own seen to end) has a work that
// moves with every completion anywhere; it is kept by its size S (tasks left
// × request, summed over phases), W being the mean duration × S up to
// rounding, and its exact work is computed at the pick for the few whose S is
// within rounding of the least.
type index struct {
	elig, rest *pq.Heap[*jobEntry] // eligible jobs (largest rank on top) and the others (smallest on top)
	jobs       []*jobEntry         // by job id
	keys       []keyAgg
	keyOf      map[keyID]int32
	dirty      []*jobEntry
	// constrained counts eligible-or-not members with an outstanding ask
	// that has placement constraints; the index does not model those, so
	// picks fall back to the scan while there are any.
	constrained int
	maxPhases   int
}

type keyID struct {
	req resource.Vector
	am  bool
}

// jobEntry is a runnable job as the index last saw it.
type jobEntry struct {
	j           *sched.Job
	r           rank  // fairness rank when last refreshed
	pos         int32 // in elig or rest; -1 when not runnable
	inElig      bool
	global      bool    // work taken from the cluster-wide mean: v is S
	v           float64 // remaining work W, or S when global
	refs        []keyRef
	constrained bool
	dirty       bool
}

// keyRef is a job's outstanding asks of one key.
type keyRef struct {
	e   *jobEntry
	key int32
	cnt int32 // asks of this key with containers outstanding
	pos int32 // in the key's heap while the job is eligible
}

// keyAgg is what the eligible jobs ask for with one key.
type keyAgg struct {
	id    keyID
	shape int32 // index in Policy.best
	cnt   int64 // outstanding asks of eligible jobs
	// Totals of cnt·W over cached jobs and cnt·S over global ones, each
	// with a bound on its accumulated rounding error.
	sumW, errW     float64
	sumS, errS     float64
	cached, global *pq.Heap[*keyRef]
}

const unitRoundoff = 0x1p-53

func byWork(a, b *keyRef) bool {
	if a.e.v != b.e.v {
		return a.e.v < b.e.v
	}
	return a.e.r.less(b.e.r)
}

func setRefPos(r *keyRef, i int) { r.pos = int32(i) }

func newIndex() index {
	setPos := func(e *jobEntry, i int) { e.pos = int32(i) }
	return index{
		elig:  pq.New(func(a, b *jobEntry) bool { return b.r.less(a.r) }, setPos),
		rest:  pq.New(func(a, b *jobEntry) bool { return a.r.less(b.r) }, setPos),
		keyOf: map[keyID]int32{},
	}
}

// markDirty notes that j's rank, asks, work or runnability may have
// changed; the index catches up at the next pick, when the core's state is
// settled (a task's completion is counted before observers hear of it, but
// the index needs not rely on it).
func (p *Policy) markDirty(j *sched.Job) {
	ix := &p.ix
	id := int(j.ID())
	for id >= len(ix.jobs) {
		ix.jobs = append(ix.jobs, nil)
	}
	e := ix.jobs[id]
	if e == nil {
		e = &jobEntry{j: j, pos: -1}
		ix.jobs[id] = e
	}
	if !e.dirty {
		e.dirty = true
		ix.dirty = append(ix.dirty, e)
	}
}

// refresh re-indexes the dirty jobs and moves the cut.
func (p *Policy) refresh() {
	ix := &p.ix
	for _, e := range ix.dirty {
		p.refreshJob(e)
		e.dirty = false
	}
	ix.dirty = ix.dirty[:0]
	n := ix.elig.Len() + ix.rest.Len()
	target := 0
	if n > 0 {
		target = min(max(int(math.Ceil((1-p.cfg.F)*float64(n))), 1), n)
	}
	for ix.elig.Len() > target {
		e := ix.elig.Remove(0)
		p.detach(e)
		e.inElig = false
		ix.rest.Push(e)
	}
	for ix.elig.Len() < target {
		e := ix.rest.Remove(0)
		e.inElig = true
		ix.elig.Push(e)
		p.attach(e)
	}
	for ix.elig.Len() > 0 && ix.rest.Len() > 0 && ix.rest.Min().r.less(ix.elig.Min().r) {
		a, b := ix.elig.Remove(0), ix.rest.Remove(0)
		p.detach(a)
		a.inElig = false
		ix.rest.Push(a)
		b.inElig = true
		ix.elig.Push(b)
		p.attach(b)
	}
}

func (p *Policy) refreshJob(e *jobEntry) {
	ix := &p.ix
	j := e.j
	if e.inElig {
		p.detach(e)
	}
	if e.constrained {
		ix.constrained--
		e.constrained = false
	}
	if p.slot[j.ID()] < 0 { // not runnable
		if e.pos >= 0 {
			if e.inElig {
				ix.elig.Remove(int(e.pos))
			} else {
				ix.rest.Remove(int(e.pos))
			}
		}
		e.inElig = false
		if j.State() == sched.Finished {
			ix.jobs[j.ID()] = nil // a finished job never asks again
		}
		return
	}
	e.r = rank{p.share[j.ID()], j.ID()}
	p.countAsks(e)
	if e.constrained {
		ix.constrained++
	}
	info := &p.jobs[j.ID()]
	ix.maxPhases = max(ix.maxPhases, len(j.Spec().Phases))
	e.global = info.seen == 0 && info.estTask == 0
	if e.global {
		e.v = p.size(j)
	} else {
		e.v = p.RemainingWork(j)
	}
	switch {
	case e.pos < 0:
		ix.rest.Push(e)
	case e.inElig:
		ix.elig.Fix(int(e.pos))
	default:
		ix.rest.Fix(int(e.pos))
	}
	if e.inElig {
		p.attach(e)
	}
}

// countAsks sets e.refs to the job's outstanding asks by key.
func (p *Policy) countAsks(e *jobEntry) {
	ix := &p.ix
	j := e.j
	info := &p.jobs[j.ID()]
	for len(info.shape) < len(j.Asks()) { // an open job asks as it goes
		info.shape = append(info.shape, p.shapeIndex(j.Asks()[len(info.shape)].Request))
	}
	e.refs = e.refs[:0]
	for i := range j.Asks() {
		a := &j.Asks()[i]
		if a.Pending <= 0 {
			continue
		}
		if a.Constrained() {
			e.constrained = true
		}
		id := keyID{a.Request, a.IsAM()}
		k, ok := ix.keyOf[id]
		if !ok {
			k = int32(len(ix.keys))
			ix.keyOf[id] = k
			ix.keys = append(ix.keys, keyAgg{id: id, shape: info.shape[i],
				cached: pq.New(byWork, setRefPos), global: pq.New(byWork, setRefPos)})
		}
		found := false
		for r := range e.refs {
			if e.refs[r].key == k {
				e.refs[r].cnt++
				found = true
				break
			}
		}
		if !found {
			e.refs = append(e.refs, keyRef{e: e, key: k, cnt: 1, pos: -1})
		}
	}
}

// size is S for job j: over its phases, tasks not yet completed × request
// as a fraction of the cluster, summed over resources. A global job's work
// is the mean task duration × S up to rounding.
func (p *Policy) size(j *sched.Job) float64 {
	info := &p.jobs[j.ID()]
	s := 0.0
	for k, ph := range j.Spec().Phases {
		if left := ph.Tasks - j.Phase(k).Completed; left > 0 {
			s += float64(left) * info.size[k]
		}
	}
	return s
}

// attach adds an eligible job's asks to the key totals and heaps.
func (p *Policy) attach(e *jobEntry) {
	for r := range e.refs {
		ref := &e.refs[r]
		k := &p.ix.keys[ref.key]
		t := float64(ref.cnt) * e.v
		k.cnt += int64(ref.cnt)
		if e.global {
			k.sumS += t
			k.errS += unitRoundoff * (math.Abs(k.sumS) + math.Abs(t))
			k.global.Push(ref)
		} else {
			k.sumW += t
			k.errW += unitRoundoff * (math.Abs(k.sumW) + math.Abs(t))
			k.cached.Push(ref)
		}
	}
}

// detach takes an eligible job's asks out of the key totals and heaps, with
// the values they were added with.
func (p *Policy) detach(e *jobEntry) {
	for r := range e.refs {
		ref := &e.refs[r]
		k := &p.ix.keys[ref.key]
		t := float64(ref.cnt) * e.v
		k.cnt -= int64(ref.cnt)
		if e.global {
			k.sumS -= t
			k.errS += unitRoundoff * (math.Abs(k.sumS) + math.Abs(t))
			k.global.Remove(int(ref.pos))
		} else {
			k.sumW -= t
			k.errW += unitRoundoff * (math.Abs(k.sumW) + math.Abs(t))
			k.cached.Remove(int(ref.pos))
		}
		if k.cnt == 0 { // nothing left: the totals are exactly zero
			k.sumW, k.errW, k.sumS, k.errS = 0, 0, 0, 0
		}
	}
}

// retotal recomputes a key's totals once their error bound has grown, from
// its heaps; the bound restarts at that of one summation.
func (k *keyAgg) retotal() {
	k.sumW, k.sumS = 0, 0
	n := k.cached.Len() + k.global.Len()
	for i := range k.cached.Len() {
		r := k.cached.At(i)
		k.sumW += float64(r.cnt) * r.e.v
	}
	for i := range k.global.Len() {
		r := k.global.At(i)
		k.sumS += float64(r.cnt) * r.e.v
	}
	k.errW = float64(n+2) * unitRoundoff * 1.01 * k.sumW
	k.errS = float64(n+2) * unitRoundoff * 1.01 * k.sumS
}

// meanSeconds is the cluster-wide mean task duration, in seconds, that a
// global job's tasks are estimated by.
func (p *Policy) meanSeconds() float64 {
	if p.doneCount > 0 {
		return (p.doneSum / clock.Duration(p.doneCount)).Seconds()
	}
	return clock.Second.Seconds()
}

// pickIndexed answers a pick from the index, or says that no eligible job
// can use the node, or that the scan must answer: asks with placement
// constraints, or two shapes whose scores are within the rounding of ε.
func (p *Policy) pickIndexed(free, capN, amRoom resource.Vector) (*sched.Ask, answer) {
	ix := &p.ix
	if ix.constrained > 0 {
		return nil, undecided
	}
	ds := p.meanSeconds()
	p.stamp++
	p.touched = p.touched[:0]
	var sumA, sumW, errW, sumS float64
	var cnt int64
	for k := range ix.keys {
		ka := &ix.keys[k]
		if ka.cnt == 0 || !ka.id.req.Fits(free) || (ka.id.am && !ka.id.req.Fits(amRoom)) {
			continue
		}
		if ka.errW > 1e-10*ka.sumW || ka.errS > 1e-10*ka.sumS {
			ka.retotal()
		}
		sb := &p.best[ka.shape]
		if sb.stamp != p.stamp {
			*sb = shapeBest{stamp: p.stamp, align: Alignment(ka.id.req, free, capN), work: math.Inf(1)}
			p.touched = append(p.touched, ka.shape)
		}
		sumA += float64(ka.cnt) * sb.align
		sumW += ka.sumW + ds*ka.sumS
		errW += ka.errW + ds*ka.errS
		sumS += ka.sumS
		cnt += ka.cnt
		if ka.cached.Len() > 0 {
			e := ka.cached.Min().e
			sb.offer(e.v, e)
		}
		if ka.global.Len() > 0 {
			p.offerGlobal(sb, ka.global)
		}
	}
	if cnt == 0 {
		return nil, noneEligible
	}
	// The scan's sums carry at most γ_n of relative error each (n terms,
	// all positive); ours carry the tracked bound, the rounding of a global
	// job's work against mean × S, and that of adding over keys.
	nk := float64(cnt) + float64(len(ix.keys)) + 4
	rel := 2 * nk * unitRoundoff * 1.01
	eps := 0.0
	if sumW > 0 {
		relW := (errW + float64(2*ix.maxPhases+4)*unitRoundoff*ds*sumS) / sumW
		if relW > 1e-9 {
			return nil, undecided
		}
		eps = p.cfg.M * sumA / sumW
		rel += relW
	} else if errW > 0 || sumS > 0 {
		return nil, undecided
	}
	lo, hi := eps*(1-4*rel), eps*(1+4*rel)
	var best *shapeBest
	var bestK int32
	bestScore := math.Inf(-1)
	for _, k := range p.touched {
		sb := &p.best[k]
		s := sb.align - eps*sb.work
		if s > bestScore || (s == bestScore && sb.rank.less(best.rank)) {
			best, bestK, bestScore = sb, k, s
		}
	}
	for _, k := range p.touched {
		o := &p.best[k]
		if o == best {
			continue
		}
		if !beats(best, o, lo, hi) {
			return nil, undecided // too close to call from the totals
		}
	}
	// The winning job's first outstanding ask of the winning shape.
	j := best.job
	info := &p.jobs[j.ID()]
	for i := range j.Asks() {
		a := &j.Asks()[i]
		if info.shape[i] == bestK && a.Pending > 0 && a.Request.Fits(free) && (!a.IsAM() || a.Request.Fits(amRoom)) {
			return a, answered
		}
	}
	return nil, undecided
}

// answer says how far the index got with a pick.
type answer int

const (
	answered     answer = iota
	noneEligible        // no eligible job can use the node: walk the rest in fairness order
	undecided           // the scan must answer
)

// beats reports whether shape b's score exceeds o's for every ε in [lo, hi]
// by more than the rounding of computing either score, so that the scan,
// whose ε lies in that range, cannot rank them otherwise. The difference of
// the scores is linear in ε: checking both ends covers the range.
func beats(b, o *shapeBest, lo, hi float64) bool {
	da, dw := b.align-o.align, b.work-o.work
	slack := 1e-12*(b.align+o.align+hi*(b.work+o.work)) + 1e-300
	return da-lo*dw > slack && da-hi*dw > slack
}

// offer keeps the job with the least work, then the lower rank.
func (sb *shapeBest) offer(w float64, e *jobEntry) {
	if w < sb.work || (w == sb.work && e.r.less(sb.rank)) {
		sb.work, sb.rank, sb.job = w, e.r, e.j
	}
}

// offerGlobal offers the global jobs of a key whose exact work may be the
// least: those whose S is within rounding of the least S. The heap is walked
// from the root, pruning below any entry past the threshold.
func (p *Policy) offerGlobal(sb *shapeBest, h *pq.Heap[*keyRef]) {
	s0 := h.Min().e.v
	limit := s0 + s0*1e-10
	stack := append(p.stack[:0], 0)
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		e := h.At(int(i)).e
		if e.v > limit {
			continue
		}
		sb.offer(p.RemainingWork(e.j), e)
		for c := 2*i + 1; c <= 2*i+2 && int(c) < h.Len(); c++ {
			stack = append(stack, c)
		}
	}
	p.stack = stack
}

// invariants checks the index against the policy's state, for tests: the
// eligible jobs are exactly the ⌈(1 − f)·N⌉ runnable jobs lowest in fairness
// order, every eligible job's outstanding asks are in its keys' heaps with
// its present rank and work, and each key's totals are within their bound.
func (p *Policy) invariants() error {
	ix := &p.ix
	n := ix.elig.Len() + ix.rest.Len()
	if n != len(p.members) {
		return fmt.Errorf("index holds %d jobs, %d are runnable", n, len(p.members))
	}
	target := 0
	if n > 0 {
		target = min(max(int(math.Ceil((1-p.cfg.F)*float64(n))), 1), n)
	}
	if ix.elig.Len() != target {
		return fmt.Errorf("%d eligible jobs of %d, want %d", ix.elig.Len(), n, target)
	}
	if ix.elig.Len() > 0 && ix.rest.Len() > 0 && ix.rest.Min().r.less(ix.elig.Min().r) {
		return fmt.Errorf("job %d is past the cut and job %d before it, out of fairness order", ix.elig.Min().j.ID(), ix.rest.Min().j.ID())
	}
	type total struct {
		cnt        int64
		sumW, sumS float64
	}
	want := make([]total, len(ix.keys))
	for h, heap := range []*pq.Heap[*jobEntry]{ix.elig, ix.rest} {
		for i := range heap.Len() {
			e := heap.At(i)
			id := e.j.ID()
			if p.slot[id] < 0 {
				return fmt.Errorf("job %d is indexed but not runnable", id)
			}
			if e.inElig != (h == 0) || int(e.pos) != i {
				return fmt.Errorf("job %d: position %d/%v, held at %d of heap %d", id, e.pos, e.inElig, i, h)
			}
			if e.r != (rank{p.share[id], id}) {
				return fmt.Errorf("job %d: indexed with share %v, has %v", id, e.r.share, p.share[id])
			}
			v := p.RemainingWork(e.j)
			if e.global {
				v = p.size(e.j)
			}
			if e.v != v {
				return fmt.Errorf("job %d: indexed with work %v, has %v (global %v)", id, e.v, v, e.global)
			}
			for _, ref := range e.refs {
				k := &ix.keys[ref.key]
				hp := k.cached
				if e.global {
					hp = k.global
				}
				switch {
				case !e.inElig && ref.pos >= 0:
					return fmt.Errorf("job %d is past the cut but in key %v's heap", id, k.id)
				case e.inElig && (ref.pos < 0 || int(ref.pos) >= hp.Len() || hp.At(int(ref.pos)) != &e.refs[indexOf(e.refs, ref.key)]):
					return fmt.Errorf("job %d is eligible but not where it says in key %v's heap", id, k.id)
				}
				if e.inElig {
					t := &want[ref.key]
					t.cnt += int64(ref.cnt)
					if e.global {
						t.sumS += float64(ref.cnt) * e.v
					} else {
						t.sumW += float64(ref.cnt) * e.v
					}
				}
			}
		}
	}
	for i := range ix.keys {
		k, t := &ix.keys[i], want[i]
		if k.cnt != t.cnt || math.Abs(k.sumW-t.sumW) > k.errW+1e-12*t.sumW || math.Abs(k.sumS-t.sumS) > k.errS+1e-12*t.sumS {
			return fmt.Errorf("key %v: totals %d, %v±%v, %v±%v; the jobs sum to %d, %v, %v", k.id, k.cnt, k.sumW, k.errW, k.sumS, k.errS, t.cnt, t.sumW, t.sumS)
		}
	}
	return nil
}

func indexOf(refs []keyRef, key int32) int {
	for i := range refs {
		if refs[i].key == key {
			return i
		}
	}
	return -1
}
