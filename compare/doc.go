// Package compare runs the finite simulator (package sim) against the
// infinite-server models (package meanfield): the tipping detector of
// model.md §4, edge brackets at several N, finite-size scaling and the rows
// of herd validate. It returns typed rows; cmd/herd prints them.
package compare
