// Package fixedpoint is herd's engine for fixed-point problems x = F(x)
// on R^n, with F given as a function on []float64: the iteration its
// callers (package meanfield) run their maps with and the pieces they
// accelerate it with, the local stability of a fixed point from the
// spectrum of the Jacobian, branches of fixed points followed along a
// parameter, and the parameter value at which a property of the solution
// changes; and, for the same callers, the one ODE integrator and the one
// batch-means estimator of the module. It is sized to its users:
// every export has a production caller (TestExportsHaveCallers), and
// what none needs is deleted, not kept for later.
//
// # Problems
//
// A Problem bundles the map F (a Map, which writes F(x) into dst and may
// report an error when x lies outside its domain), an optional analytic
// Jacobian DF, and an optional KinkFunc for piecewise-smooth maps. F
// should be scaled so that its components are of order one: the
// finite-difference steps are relative to the size of x.
//
// # Methods
//
//   - Iteration: the iteration x_{n+1} = F(x_n) run on an Orbit until it
//     closes up on a fixed point or a periodic orbit, with hooks for an
//     accelerating jump (for example AndersonMixer's) and for the
//     caller's progress reports, cancellation and checkpoints.
//   - Orbit: the last points of an iteration under a caller's distance
//     (states may change length, as truncated distributions do; for
//     example the L1 distance with the shorter padded with zeros), their
//     smallest period and nearest return.
//   - AndersonMixer: the Anderson acceleration step of depth m (Anderson
//     1965, in the form of Walker & Ni 2011), with the least-squares
//     problem solved by Householder QR and safeguarded against
//     ill-conditioning, for a caller that drives its own iteration.
//   - Jacobian, Eigenvalues and Arnoldi: DF at a point (supplied or by
//     one-sided, kink-aware finite differences; Kelley 1995, §5.6) and its
//     spectrum, dense (LAPACK via gonum/mat) or by the Arnoldi process on
//     finite-difference Jacobian–vector products (Saad 2011, ch. 6);
//     SpectralRadius.
//   - Follow: natural-parameter continuation of a branch of a
//     piecewise-smooth family down in μ with a caller's corrector (for
//     example the map's own iteration), a secant predictor within one
//     smooth piece (Extrapolate; Allgower & Georg 2003, §2.1) and
//     border-collision location by regula falsi on the distance to the
//     border (BorderEstimate), reporting where the branch is lost to a
//     relative tolerance; with FollowSettings.Chain the trials that would
//     follow a failure are handed over with it, for a caller to correct at
//     once (the same result).
//   - Sweep: a branch corrected over the caller's grid of μ (for example
//     GeometricGrid), each point warm-started from the one before while
//     that lies on the branch, with the first loss optionally bisected in
//     log μ (BisectGeometric).
//   - DormandPrince: the explicit Runge–Kutta pair RK5(4) of Dormand &
//     Prince (1980) for y' = f(y), integrated with adaptive step sizes
//     (Integrate; Hairer, Nørsett & Wanner 1993, §II.4–5) on a state that
//     the caller's hooks (Adaptive) may lengthen and cut between steps.
//   - BatchMeans, BatchSE and BatchSlope: the means of consecutive
//     batches of a correlated series, their standard error and drift
//     (Flyvbjerg & Petersen 1989), for the averages of irregular
//     attractors.
//   - BisectInt and BisectGeometric: where a predicate changes value, on
//     the integers and in log μ, by the leaf package root's bisection,
//     herd's one bisection and Brent's method (root.Bisect, root.Brent),
//     which the simulator may import too.
//
// # Affine constraints
//
// Many maps preserve an affine set x0 + S, for example probability vectors,
// for which Σx = 1 is conserved and S = {v : Σv = 0}. On such a set the
// Jacobian of G(x) = F(x) − x is singular in the directions normal to S
// (for x = xP the eigenvalue 1 of P gives a zero eigenvalue of DG). A
// Subspace describes S by an orthonormal basis Q (an n×r matrix) and an
// orthogonal projector Π = QQᵀ; SumZero(n) is S = {Σv = 0}. Arnoldi and
// Eigenvalues restrict the Jacobian to S (the spectrum reported is that
// of QᵀDF Q), so that the multipliers normal to S do not mask those along
// it.
//
// # Piecewise-smooth maps
//
// A piecewise-smooth map is smooth on each of finitely many regions and
// continuous across their borders, but its derivative jumps there (a kink).
// A finite difference (F(x+hd) − F(x))/h whose step straddles a border
// averages the two one-sided derivatives and is wrong by O(1), whatever h.
// This matters near a border-collision bifurcation, where a fixed point
// reaches the border (di Bernardo et al. 2008, ch. 3): the stable fixed
// point and its stability are determined by the derivative of the piece on
// which it lies. A caller who knows where the borders are supplies
// Problem.Kink: Kink(x, d) returns the distance t > 0, in units of d, to the
// first border crossed by the open segment {x + s·d : 0 < s < t} (+Inf if
// none). All finite differences in this package then use the step
//
//	h = min(h0·max(1, scale)/‖d‖∞, t/2)
//
// forward along d, and when the forward step is shortened by a border and
// the backward direction −d allows a longer one, the backward difference
// (F(x−hd) − F(x))/(−h) instead. A difference therefore never straddles a
// border and is the one-sided derivative of the piece containing x (for a
// point exactly on a border, of the piece on the roomier side). The
// relative step h0 defaults to sqrt(ε) ≈ 1.5e-8 (Kelley 1995, §5.6).
//
// # Errors
//
// A method that stops without meeting its tolerance returns an error
// wrapping ErrNotConverged, with its result holding what was reached.
// Errors returned by the map are wrapped and returned. Invalid settings
// are reported by Validate; mismatched lengths and nil maps are
// programmer errors and panic.
//
// # References
//
//   - D. G. Anderson, Iterative procedures for nonlinear integral equations,
//     J. ACM 12(4):547–560, 1965.
//   - H. F. Walker and P. Ni, Anderson acceleration for fixed-point
//     iterations, SIAM J. Numer. Anal. 49(4):1715–1735, 2011 (Algorithm AA
//     and §4 on the QR least-squares solution and dropping columns).
//   - C. T. Kelley, Iterative Methods for Linear and Nonlinear Equations,
//     SIAM Frontiers in Applied Mathematics 16, 1995 (finite-difference
//     Jacobians and directional derivatives §5.6, §6.2).
//   - Y. Saad, Numerical Methods for Large Eigenvalue Problems, 2nd ed.,
//     SIAM Classics in Applied Mathematics 66, 2011 (Arnoldi process with
//     reorthogonalisation §6.2, Ritz residual estimate §6.2.2).
//   - M. di Bernardo, C. J. Budd, A. R. Champneys and P. Kowalczyk,
//     Piecewise-smooth Dynamical Systems: Theory and Applications, Springer
//     Applied Mathematical Sciences 163, 2008 (ch. 3: border-collision bifurcations
//     of maps, the piecewise-linear normal form x ↦ a·x + μ, b·x + μ).
//   - J. R. Dormand and P. J. Prince, A family of embedded Runge–Kutta
//     formulae, J. Comput. Appl. Math. 6(1):19–26, 1980.
//   - E. Hairer, S. P. Nørsett and G. Wanner, Solving Ordinary
//     Differential Equations I: Nonstiff Problems, 2nd ed., Springer, 1993
//     (§II.4 step-size control, §II.5 the Dormand–Prince pair).
//   - H. Flyvbjerg and H. G. Petersen, Error estimates on averages of
//     correlated data, J. Chem. Phys. 91(1):461–466, 1989 (batch means).
//   - E. L. Allgower and K. Georg, Introduction to Numerical Continuation
//     Methods, SIAM Classics in Applied Mathematics 45, 2003.
package fixedpoint
