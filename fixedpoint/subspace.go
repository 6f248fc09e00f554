package fixedpoint

import (
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// Subspace is a linear subspace S of R^n of dimension r, the tangent space
// of an affine set x0 + S on which a map's fixed points are sought.
type Subspace interface {
	// Dims returns the ambient dimension n and the dimension r of S.
	Dims() (n, r int)
	// Project sets dst = Πv, the orthogonal projection of v onto S. dst and
	// v may be the same slice.
	Project(dst, v []float64)
	// Basis returns an n×r matrix Q with orthonormal columns spanning S.
	// The caller must not modify it.
	Basis() *mat.Dense
}

// SumZero returns S = {v ∈ R^n : Σv_i = 0}, the tangent space of the
// probability simplex, for n ≥ 2. Its projector v − mean(v) costs O(n); its
// basis is the Helmert basis, whose column k = 1, …, n−1 is
// (1, …, 1, −k, 0, …, 0)/sqrt(k(k+1)) with k leading ones.
func SumZero(n int) Subspace {
	if n < 2 {
		panic("fixedpoint: SumZero needs n ≥ 2")
	}
	return &sumZero{n: n}
}

type sumZero struct {
	n    int
	once sync.Once
	q    *mat.Dense
}

func (s *sumZero) Dims() (int, int) { return s.n, s.n - 1 }

func (s *sumZero) Project(dst, v []float64) {
	if len(dst) != s.n || len(v) != s.n {
		panic("fixedpoint: subspace projection length mismatch")
	}
	mean := 0.0
	for _, e := range v {
		mean += e
	}
	mean /= float64(s.n)
	for i, e := range v {
		dst[i] = e - mean
	}
}

func (s *sumZero) Basis() *mat.Dense {
	s.once.Do(func() {
		q := mat.NewDense(s.n, s.n-1, nil)
		for k := 1; k < s.n; k++ {
			c := 1 / math.Sqrt(float64(k)*float64(k+1))
			for i := 0; i < k; i++ {
				q.Set(i, k-1, c)
			}
			q.Set(k, k-1, -float64(k)*c)
		}
		s.q = q
	})
	return s.q
}

func checkSubspace(who string, s Subspace, n int) {
	if s == nil {
		return
	}
	if m, _ := s.Dims(); m != n {
		panic(fmt.Sprintf("fixedpoint: %s: subspace of R^%d for a point in R^%d", who, m, n))
	}
}
