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

// NewSubspace returns the subspace spanned by the columns of q, which must
// be orthonormal to within 1e-10 (‖QᵀQ − I‖max). q is copied.
func NewSubspace(q *mat.Dense) (Subspace, error) {
	n, r := q.Dims()
	if r > n {
		return nil, fmt.Errorf("fixedpoint: basis is %d×%d, want at most as many columns as rows", n, r)
	}
	var qtq mat.Dense
	qtq.Mul(q.T(), q)
	for i := 0; i < r; i++ {
		for j := 0; j < r; j++ {
			want := 0.0
			if i == j {
				want = 1
			}
			if d := math.Abs(qtq.At(i, j) - want); !(d <= 1e-10) {
				return nil, fmt.Errorf("fixedpoint: basis columns %d and %d are not orthonormal (QᵀQ − I = %.3g)", i, j, d)
			}
		}
	}
	return &basisSubspace{q: mat.DenseCopyOf(q)}, nil
}

// OrthogonalComplement returns S = {v : cᵀv = 0}, the orthogonal complement
// of the span of the k columns of the n×k matrix c, which must have full
// column rank. Its basis is the last n−k columns of the orthogonal factor of
// the QR factorisation of c.
func OrthogonalComplement(c *mat.Dense) (Subspace, error) {
	n, k := c.Dims()
	if k >= n {
		return nil, fmt.Errorf("fixedpoint: %d constraints in dimension %d leave no tangent space", k, n)
	}
	var qr mat.QR
	qr.Factorize(c)
	var r mat.Dense
	qr.RTo(&r)
	maxR := 0.0
	for i := 0; i < k; i++ {
		maxR = math.Max(maxR, math.Abs(r.At(i, i)))
	}
	for i := 0; i < k; i++ {
		if !(math.Abs(r.At(i, i)) > 1e-12*maxR) {
			return nil, fmt.Errorf("fixedpoint: constraint columns are linearly dependent (column %d)", i)
		}
	}
	var q mat.Dense
	qr.QTo(&q)
	basis := mat.DenseCopyOf(q.Slice(0, n, k, n))
	return &basisSubspace{q: basis}, nil
}

type basisSubspace struct {
	q *mat.Dense
}

func (s *basisSubspace) Dims() (int, int)  { return s.q.Dims() }
func (s *basisSubspace) Basis() *mat.Dense { return s.q }

func (s *basisSubspace) Project(dst, v []float64) {
	n, r := s.q.Dims()
	if len(dst) != n || len(v) != n {
		panic("fixedpoint: subspace projection length mismatch")
	}
	y := make([]float64, r)
	yv := mat.NewVecDense(r, y)
	yv.MulVec(s.q.T(), mat.NewVecDense(n, v))
	mat.NewVecDense(n, dst).MulVec(s.q, yv)
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
