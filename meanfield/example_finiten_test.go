package meanfield_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"herd/meanfield"
)

// The stationary covariance of y_{n+1} = A·y_n + ε_n with Cov ε = Q
// (package doc, §8, (8.3)). For diagonal A it is Q_ij/(1 − a_i·a_j):
// 1/(1 − 0.25) = 1.3333, 0.5/(1 − 0.4) = 0.8333, 1/(1 − 0.64) = 2.7778.
func ExampleDiscreteLyapunov() {
	A := mat.NewDense(2, 2, []float64{0.5, 0, 0, 0.8})
	Q := mat.NewSymDense(2, []float64{1, 0.5, 0.5, 1})
	S, err := meanfield.DiscreteLyapunov(A, Q)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.4f %.4f %.4f\n", S.At(0, 0), S.At(0, 1), S.At(1, 1))
	// Output: 1.3333 0.8333 2.7778
}

// The linear-noise picture of the balanced state at k = 5, λ = 0.9,
// T = 400 with N = 100 servers (package doc, §8): the board mean's
// standard deviation is most of a job, and the end of the cut window moves
// by most of a window (k/λ = 5.6) from period to period.
func ExampleLinearise() {
	ln, err := meanfield.Linearise(meanfield.FiniteN{Refresh: meanfield.Refresh{Dispatchers: 5, Load: 0.9, Period: 400}, Servers: 100})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("board mean %.3f ± %.2f, response %.3f\n", ln.BoardMean, ln.BoardMeanSD, ln.Response)
	fmt.Printf("window end %.2f after T, standard deviation %.1f\n", ln.Border, ln.BorderSD)
	// Output:
	// board mean 5.489 ± 0.65, response 7.900
	// window end 2.84 after T, standard deviation 4.2
}

// The refined mean field of the supermarket model SQ(2) at λ = 0.9
// (package doc, §8): the mean field's mean queue Σ_i λ^(2^i − 1) = 2.3527
// (SupermarketTails) and its 1/N term 3.9864, so that at N = 10 servers the
// mean queue is 2.7513 and the mean time in system 3.0570.
func ExampleRefinedSupermarket() {
	r, err := meanfield.RefinedSupermarket{D: 2, Load: 0.9}.Solve()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("mean field %.4f, 1/N term %.4f\n", r.QueueMean, r.QueueTerm)
	fmt.Printf("N = 10: queue %.4f, response %.4f\n", r.QueueAt(10), r.ResponseAt(10))
	// Output:
	// mean field 2.3527, 1/N term 3.9864
	// N = 10: queue 2.7513, response 3.0570
}
