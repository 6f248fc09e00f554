package fleet

// The published edge law (compare/validation.md; meanfield's package
// doc, §5): k dispatchers herd when the refresh period T is beyond
// T_edge, with T_edge(1 − λ)² ≈ LawSlope·(k − LawOffset) = 0.9(k − 2).
const (
	LawSlope  = 0.9
	LawOffset = 2
)

// LawScaled returns the law's x = T_edge(1 − λ)² for k dispatchers,
// 0.9(k − 2): no edge (x ≤ 0) for k ≤ 2.
func LawScaled(k int) float64 { return LawSlope * float64(k-LawOffset) }
