package main

import (
	"context"
	"os"
	"testing"
)

func TestZZTables(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip()
	}
	pol := "uniform,greedy:2,greedy:3,greedy:4,left:2,left:3,left:4,firstdiff:2,firstdiff:3,firstdiff:4"
	groups := []struct{ bins, runs string }{
		{"256,1024,4096,16384,65536", "200"},
		{"262144,1048576", "40"},
		{"4194304", "12"},
		{"16777216", "6"},
	}
	f, _ := os.Create("/tmp/tab_main.txt")
	for _, g := range groups {
		out, errs, code := balls(context.Background(), "--bins", g.bins, "--runs", g.runs, "--policy", pol, "--format", "csv")
		f.WriteString(out + errs)
		_ = code
	}
	f.Close()
	f2, _ := os.Create("/tmp/tab_batch.txt")
	out, errs, _ := balls(context.Background(), "--bins", "65536", "--runs", "50", "--policy", pol,
		"--batch", "1,2,4,16,64,256,1024,4096,16384,65536", "--format", "csv")
	f2.WriteString(out + errs)
	f2.Close()
}
