package report

import (
	"encoding/json"
	"fmt"

	"github.com/spindle-sched/spindle/admission/autoadmin"
)

// drawAutoAdmin draws the AutoAdmin section (admission/autoadmin): the
// reservation R_R(t) kept for task containers, per resource, and the
// ApplicationMasters admitted and waiting. It reads the controller's own
// report type, so that the two cannot drift apart.
func drawAutoAdmin(sec *section, runs []sectionRun) error {
	var per []runCharts
	for _, sr := range runs {
		var rep autoadmin.Report
		if json.Unmarshal(sr.Raw, &rep) != nil {
			return fmt.Errorf("%s: series is not {t_s, reserve, admitted, waiting} in columns", sr.Run.Name)
		}
		s := rep.Series
		n := len(s.T)
		if n == 0 || len(s.Admitted) != n || len(s.Waiting) != n {
			return fmt.Errorf("%s: series: want t_s, admitted and waiting of one length", sr.Run.Name)
		}
		line := func(name string, ys []float64) namedLine {
			l := namedLine{Name: name}
			for i, y := range ys {
				l.Points = append(l.Points, point{s.T[i], y})
			}
			return l
		}
		count := func(name string, ns []int) namedLine {
			l := namedLine{Name: name}
			for i, y := range ns {
				l.Points = append(l.Points, point{s.T[i], float64(y)})
			}
			return l
		}
		var charts []genericChart
		for _, dim := range sortedKeys(s.Reserve) {
			if len(s.Reserve[dim]) != n {
				return fmt.Errorf("%s: series.reserve.%s: want %d values", sr.Run.Name, dim, n)
			}
			charts = append(charts, genericChart{Title: "AutoAdmin: reservation R_R(t) for task containers, " + dim,
				YLabel: "reserved (" + dim + ")", Step: true, Series: namedLines{line("R_R", s.Reserve[dim])}})
		}
		charts = append(charts, genericChart{Title: "AutoAdmin: ApplicationMasters admitted and waiting", YLabel: "jobs", Step: true,
			Series: namedLines{count("admitted", s.Admitted), count("waiting", s.Waiting)}})
		per = append(per, runCharts{sr: sr, charts: charts})
	}
	sec.Title = "Admission internals: AutoAdmin"
	sec.Intro = "R_R is the share AutoAdmin predicts task containers need (Algorithm 2); a job's ApplicationMaster is admitted only while the AMs leave it free (Algorithm 3), and waits otherwise."
	addCharts(sec, per, "AutoAdmin")
	renderParts(sec, runs, map[string]bool{"series": true})
	return nil
}
