package replay

// JobLabels maps each workload job's ID to the spindle.io/job label its pods
// carry in this replay, so that what a recorder of the cluster saw can be
// matched with the workload that was played.
func (r *Replayer) JobLabels() map[string]string {
	out := make(map[string]string, len(r.jobs))
	for _, j := range r.jobs {
		out[j.w.ID] = j.label
	}
	return out
}
