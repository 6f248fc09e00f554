package meanfield
import ("testing"; "time")
func TestDiagPhase(t *testing.T) {
	for _, svc := range []Service{H2Service(10)} {
		r := Refresh{Dispatchers: 5, Load: 0.9, Period: 800, Service: svc}
		t0 := time.Now()
		a, err := FindAttractor(r, svc.Lift(BoardEmpty()), AttractorSettings{MaxIter: 20})
		t.Logf("%s: %v %s period %d board mean %.3f resp %.3f it %d  %.2fs trunc %.2g", svc, err, a.Kind, a.Period, a.BoardMean, a.Response, a.Iterations, time.Since(t0).Seconds(), a.Truncation)
	}
}
