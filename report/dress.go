package report

import (
	"encoding/json"
	"fmt"

	"github.com/spindle-sched/spindle/policy/dress"
)

// drawDress draws the DRESS section (policy/dress): the small jobs'
// reserve ratio δ(t), and per adjustment interval the task containers the
// release estimator predicted to free over its horizon against those
// observed to free. With dress and dress:estimator=off side by side, the
// second chart shows what the estimate buys. The section is read with the
// policy's own type, dress.Report, so the two cannot drift apart.
func drawDress(sec *section, runs []sectionRun) error {
	var per []runCharts
	for _, sr := range runs {
		var rep dress.Report
		if err := json.Unmarshal(sr.Raw, &rep); err != nil {
			return fmt.Errorf("%s: not a DRESS section (series is a list of {t_s, delta, predicted, actual}): %w", sr.Run.Name, err)
		}
		delta := namedLine{Name: "δ"}
		pred := namedLine{Name: "predicted"}
		act := namedLine{Name: "observed"}
		// Per-interval counts are too spiky to compare by eye; their
		// running sums show the estimator's bias as the gap between two
		// curves.
		sumPred, sumAct := 0.0, 0.0
		for _, p := range rep.Series {
			sumPred, sumAct = sumPred+p.Predicted, sumAct+float64(p.Actual)
			delta.Points = append(delta.Points, point{p.T, p.Delta})
			pred.Points = append(pred.Points, point{p.T, sumPred})
			act.Points = append(act.Points, point{p.T, sumAct})
		}
		if len(rep.Series) == 0 {
			return fmt.Errorf("%s: no series", sr.Run.Name)
		}
		per = append(per, runCharts{sr: sr, charts: []genericChart{
			{Title: "DRESS: reserve ratio δ(t) for small-demand jobs", YLabel: "δ (share of the cluster)", Step: true,
				Series: namedLines{delta}},
			{Title: "DRESS: task containers released, predicted vs observed (running sum over intervals)", YLabel: "containers released", Step: true,
				Series: namedLines{pred, act}},
		}})
	}
	sec.Title = "Policy internals: DRESS"
	sec.Intro = "δ is the share of the cluster reserved for small-demand jobs, re-tuned every interval (Algorithm 3). At the start of each interval the release estimator predicts how many task containers will be freed over its horizon; the second chart adds up these predictions and the releases then observed, so the gap between the curves is the estimator's bias (when the horizon spans several intervals, a release counts in each window that covers it). The values table gives the estimator's mean absolute error next to predicting zero and predicting the last interval's releases."
	addCharts(sec, per, "DRESS")
	renderParts(sec, runs, map[string]bool{"series": true})
	return nil
}
