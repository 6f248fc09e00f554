package main

import (
	"context"
	"errors"
)

// runFigures writes every published chart (issue 9).
func runFigures(ctx context.Context, e *env, args []string) error {
	return errors.New("figures: not implemented yet")
}
