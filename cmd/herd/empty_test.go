package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestEmptyValues passes every flag of every command an explicitly empty
// value (--name=, as a script with an unset variable does) and wants a
// usage error naming the flag: no herd flag gives empty a meaning, so an
// empty value taken as "not given" would run the default in its place. The
// context is cancelled, so a command that took the value and started work
// stops at once and fails the test instead of running it.
func TestEmptyValues(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	flags := commandFlags()
	if len(flags) < 10 {
		t.Fatalf("commandFlags found %d commands, want every command with flags", len(flags))
	}
	n := 0
	for name, fl := range flags {
		for _, f := range fl {
			args := []string{name}
			if name == "figures" || name == "merge" { // DIR comes first
				args = append(args, dir)
			}
			args = append(args, "--"+f.Name+"=")
			var stdout, stderr bytes.Buffer
			code := run(ctx, args, &stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), "--"+f.Name) {
				t.Errorf("herd %s: exit %d, stderr %q; want exit 2 naming --%s", strings.Join(args, " "), code, stderr.String(), f.Name)
			}
			n++
		}
	}
	t.Logf("%d flags of %d commands", n, len(flags))
	for _, args := range [][]string{{"merge", ""}, {"merge", " "}, {"figures", ""}} {
		var stdout, stderr bytes.Buffer
		if code := run(ctx, args, &stdout, &stderr); code != 2 {
			t.Errorf("herd %q: exit %d, stderr %q; want 2 (an empty directory)", args, code, stderr.String())
		}
	}
}

// herd merge reads a directory given as its argument; --out, the flag that
// names a directory elsewhere, gets an error that says so.
func TestMergeOutIsArgument(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"merge", "--out", "sweep"}, {"merge", "--out=sweep"}} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), "the directory of the parts is merge's argument, herd merge DIR") {
			t.Errorf("herd %q: exit %d, stderr %q; want exit 2 saying DIR is the argument", args, code, stderr.String())
		}
	}
}
