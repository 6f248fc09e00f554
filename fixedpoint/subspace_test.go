package fixedpoint

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestSubspaces(t *testing.T) {
	t.Parallel()
	const n = 7
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	cases := []struct {
		name string
		s    Subspace
		r    int
		cons [][]float64 // constraint vectors orthogonal to S
	}{
		{"SumZero", SumZero(n), n - 1, [][]float64{ones}},
	}
	for _, cs := range cases {
		t.Run(cs.name, func(t *testing.T) {
			t.Parallel()
			m, r := cs.s.Dims()
			q := cs.s.Basis()
			if m != n || r != cs.r {
				t.Fatalf("dims (%d, %d), want (%d, %d)", m, r, n, cs.r)
			}
			var qtq mat.Dense
			qtq.Mul(q.T(), q)
			if !mat.EqualApprox(&qtq, eye(r), 1e-13) {
				t.Errorf("QᵀQ ≠ I")
			}
			for _, con := range cs.cons {
				for j := 0; j < r; j++ {
					if d := dot(con, mat.Col(nil, j, q)); math.Abs(d) > 1e-12 {
						t.Errorf("column %d not orthogonal to the constraint: %v", j, d)
					}
				}
			}
			// The projector is idempotent and agrees with QQᵀ.
			v := []float64{3, -1, 4, 1, -5, 9, 2}
			pv := make([]float64, n)
			cs.s.Project(pv, v)
			var qqt mat.Dense
			qqt.Mul(q, q.T())
			want := mat.NewVecDense(n, nil)
			want.MulVec(&qqt, mat.NewVecDense(n, v))
			checkClose(t, "Πv", pv, want.RawVector().Data, 1e-13)
			ppv := make([]float64, n)
			cs.s.Project(ppv, pv)
			checkClose(t, "ΠΠv", ppv, pv, 1e-13)
		})
	}
}
