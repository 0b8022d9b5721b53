package adaptive

// Job Utility Calculator: the per-job performance model both schedulers
// place by.

// Utility is the value to a job of running s tasks in parallel when it needs
// need of them to meet its goal and could use at most pend:
//
//	u(s) = (s − need)/(pend − need)   when s ≥ need,
//	u(s) = (s − need)/need            when s < need,
//
// so u runs from −1 (nothing) through 0 (exactly what the goal needs) to 1
// (every task it could run). Adaptive's need is s_req, Reverse-Adaptive's
// s_fit. A job that needs more than it could use stays below 0 however much
// it gets; one that needs exactly what it could use has 0 once it has it.
func Utility(s, need, pend float64) float64 {
	if s < need {
		return (s - need) / need
	}
	if pend <= need {
		return 0
	}
	return min(1, (s-need)/(pend-need))
}
