package main

import (
	"context"
	"io"
	"testing"
)

// BenchmarkEdgeCommand times herd edge as a user runs it, two workers,
// for the cases of issue 43's goals that the command answers by the
// heavy-traffic expansion (method auto above λ = 0.99): λ up to 0.99999
// in under 10 s, and k = 2 at λ = 0.999 (no edge at k ≤ 2, so no exact
// anchors either). The time of an expansion row is its anchors' exact
// searches at compare.ExpansionLoads and the limit map's x*(k), run side
// by side. The exact searches of the same goals are meanfield's
// BenchmarkEdge and BenchmarkEdgeGoals. Expansion at k = 16, λ = 0.99999:
// 16.2 s before the full windows' closed form (refreshballot.go), 5.2–6.6 s
// after; auto at k = 2, λ = 0.999: 0.22 s (idle 2-core AMD EPYC,
// 2026-12-06).
func BenchmarkEdgeCommand(b *testing.B) {
	if testing.Short() {
		b.Skip("long: seconds per edge")
	}
	cases := []struct {
		name string
		args []string
	}{
		{"expansion_k5_l0.99999", []string{"--dispatchers", "5", "--load", "0.99999"}},
		{"expansion_k16_l0.99999", []string{"--dispatchers", "16", "--load", "0.99999"}},
		{"auto_k2_l0.999", []string{"--dispatchers", "2", "--load", "0.999"}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			args := append([]string{"edge", "--workers", "2", "--progress", "never"}, c.args...)
			for b.Loop() {
				if code := run(context.Background(), args, io.Discard, io.Discard); code != 0 {
					b.Fatalf("herd %v: exit %d", args, code)
				}
			}
		})
	}
}
