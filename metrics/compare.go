package metrics

// CompareRuns adds to each summary the measures that only make sense across
// the runs of one comparison (same workload, several policies). It is called
// by `compare` after every run has finished.
//
// Throughput is re-evaluated on a common time axis: the jobs each run has
// completed by 25, 50 and 75 % of the slowest run's makespan (and the curve up
// to it), so that "more jobs done sooner" reads across columns. Summaries
// read back from JSON carry no completion times and are left as they are.
func CompareRuns(ss []*Summary) {
	ref := 0.0
	for _, s := range ss {
		ref = max(ref, s.MakespanS)
	}
	for _, s := range ss {
		if s.finishes == nil && s.JobsCompleted > 0 {
			continue
		}
		s.setThroughput(ref, RefSlowestMakespan)
	}
}

// RestoreFinishes gives a summary read back from JSON the completion times
// CompareRuns needs, taken from the run's jobs. jobs.csv writes every time
// exactly (shortest round-trip form), so a comparison assembled from saved
// runs, such as the shards of one, gets the same throughput measures as the
// comparison run in one process.
func (s *Summary) RestoreFinishes(jobs []Job) { s.finishes = finishOffsets(jobs) }
