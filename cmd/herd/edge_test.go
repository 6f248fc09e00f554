package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
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

// itemProgress: always gives a line per item with its time, the time
// elapsed and the time left (none after the last); auto on a writer that
// is not a terminal gives only heartbeat lines; never gives nothing.
func TestItemProgress(t *testing.T) {
	old := heartbeatEvery
	heartbeatEvery = 20 * time.Millisecond
	defer func() { heartbeatEvery = old }()
	labels := []string{"k=3 λ=0.9", "k=5 λ=0.9"}
	weights := []float64{1, 3}

	var b bytes.Buffer
	p := newItemProgress(&b, progressAlways, "edge", "edges", labels, weights)
	p.begin(0)
	p.end(0, "edge 0.9930")
	p.begin(1)
	time.Sleep(70 * time.Millisecond)
	p.end(1, "edge 2.8992")
	p.close()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	var items []string
	var beats int
	for _, l := range lines {
		if strings.HasPrefix(l, "edge ") {
			items = append(items, l)
		} else if strings.HasPrefix(l, "edge: ") {
			beats++
		}
	}
	if len(items) != 2 || !strings.HasPrefix(items[0], "edge 1/2: k=3 λ=0.9: edge 0.9930 in ") ||
		!strings.Contains(items[0], "elapsed, about ") || !strings.Contains(items[0], "left") ||
		strings.Contains(items[1], "left") {
		t.Errorf("item lines %q", items)
	}
	if beats == 0 || !strings.Contains(b.String(), "running k=5 λ=0.9 for") {
		t.Errorf("no heartbeat naming the running item in %q", b.String())
	}

	b.Reset()
	p = newItemProgress(&b, progressAuto, "edge", "edges", labels, weights)
	p.begin(0)
	time.Sleep(50 * time.Millisecond)
	p.end(0, "none")
	p.close()
	if s := b.String(); strings.Contains(s, "edge 1/2") || !strings.Contains(s, "edge: 0/2 edges done") {
		t.Errorf("auto, not a terminal: %q, want heartbeat lines only", s)
	}

	b.Reset()
	p = newItemProgress(&b, progressNever, "edge", "edges", labels, weights)
	p.begin(0)
	p.end(0, "none")
	p.close()
	if b.Len() != 0 {
		t.Errorf("never: %q", b.String())
	}
}
