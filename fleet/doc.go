// Package fleet is herd's one vocabulary of a fleet's set-up, shared by
// the simulator (sim), the model (meanfield), compare and the command
// line: the start states (Start, ParseStart), the dispatch policies
// (Policy, ParsePolicy; ParseBallsPolicy for balls into bins), the
// job-size laws (Sizes, ParseSizes) and the constants of the published
// edge law T_edge(1 − λ)² ≈ 0.9(k − 2) (LawScaled).
//
// It imports no herd package, so that sim, which must never import the
// model, and meanfield read and write the same words: half:0.1T means the
// same board to both, sqd:2 the same rule, h2:4 the same job sizes, and
// the law is written down once. What a word does is each side's own: sim
// draws a start state's queues on N servers (sim's run), runs a policy's
// choices and draws job sizes; meanfield computes the board as N → ∞
// (meanfield's StartBoard, package doc, §2) and solves the models some
// policies have (meanfield's ClassicModel); compare maps a phase-type
// job-size law to the model's service (compare's ModelService).
package fleet
