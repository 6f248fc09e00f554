package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"herd/compare"
	"herd/meanfield"
)

// The footer counts a load where the law 0.9(k−2) predicts an edge and the
// model finds none (λ = 0.8, k = 3: validation.md, an independent solver
// finds no edge down to T(1−λ)² = 0.02).
func TestEdgeFooterCountsMissingEdge(t *testing.T) {
	t.Parallel()
	out, errs, code := herd(t, "edge", "--dispatchers", "3", "--load", "0.8", "--progress", "never")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := "λ = 0.8: largest deviation from the law 0.9(k−2): no edge at all for k = 3, where the law predicts one"
	if !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}

// --progress takes auto, always or never.
func TestEdgeProgressFlag(t *testing.T) {
	t.Parallel()
	_, errs, code := herd(t, "edge", "--progress", "sometimes")
	if code != 2 || !strings.Contains(errs, "--progress") || !strings.Contains(errs, "auto, always or never") {
		t.Errorf("exit %d, stderr %q; want 2 naming --progress and its values", code, errs)
	}
}

// A progress line says "stopped" for an edge that Ctrl-C ended (an error
// wrapping meanfield.ErrStopped) and "failed" for any other error.
func TestEdgeStatusStopped(t *testing.T) {
	t.Parallel()
	stopped := compare.EdgePoint{Err: fmt.Errorf("edge search at T = 290: %w", meanfield.ErrStopped)}
	failed := compare.EdgePoint{Err: errors.New("meanfield: refresh map: too many rows")}
	if got := edgeStatus(stopped); got != "stopped" {
		t.Errorf("stopped edge: status %q, want \"stopped\"", got)
	}
	if got := edgeStatus(failed); got != "failed" {
		t.Errorf("failed edge: status %q, want \"failed\"", got)
	}
}

// The heartbeat names an edge's step, its maps and its last run.
func TestEdgeStep(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		p    meanfield.EdgeProgress
		want string
	}{
		{meanfield.EdgeProgress{Step: "confirm", Maps: 1234, Scaled: 9.57613, Ran: true, Reached: true}, "confirm, 1234 maps; last run T(1−λ)² = 9.5761: balanced"},
		{meanfield.EdgeProgress{Step: "follow", Maps: 7, Scaled: 30, Ran: true}, "follow, 7 maps; last run T(1−λ)² = 30.0000: not balanced"},
		{meanfield.EdgeProgress{Step: "herd", Maps: 880, Scaled: 28.5}, "herd, 880 maps; from T(1−λ)² = 28.5000"},
	} {
		if got := edgeStep(c.p); got != c.want {
			t.Errorf("edgeStep(%+v) = %q, want %q", c.p, got, c.want)
		}
	}
	if got := mapsSince(523); got != "523 maps since" {
		t.Errorf("mapsSince(523) = %q", got)
	}
	if got := mapsSince(0); got != "" {
		t.Errorf("mapsSince(0) = %q, want nothing", got)
	}
}
