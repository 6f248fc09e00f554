package main

import (
	"context"
	"errors"
)

// runMerge combines the part files of a sharded sweep (issue 7).
func runMerge(ctx context.Context, e *env, args []string) error {
	return errors.New("merge: not implemented yet")
}
