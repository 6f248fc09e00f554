package main

import (
	"context"
	"errors"
)

// runModel prints the classic mean-field models (issue 4).
func runModel(ctx context.Context, e *env, args []string) error {
	return errors.New("model: not implemented yet")
}
