package table_test

import (
	"math"
	"os"

	"herd/cmd/internal/table"
)

func ExampleTable_WriteText() {
	t := &table.Table{
		Title:   "supermarket model",
		Meta:    []table.Field{{Key: "d", Value: "2"}, {Key: "seed", Value: "1"}},
		Columns: []table.Column{{Name: "policy"}, {Name: "rho"}, {Name: "mean"}},
	}
	t.AddRow("random", 0.9, 10.0)
	t.AddRow("sq(2)", 0.9, 2.6144)
	t.AddRow("sq(2)", 0.99, math.NaN())
	t.Warnings = append(t.Warnings, "rho=0.99: not converged")
	if err := t.WriteText(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// # supermarket model
	// # d=2 seed=1
	// policy   rho   mean
	// random   0.9     10
	// sq(2)    0.9  2.614
	// sq(2)   0.99      -
	// warning: rho=0.99: not converged
}

func ExampleTable_WriteCSV() {
	t := &table.Table{Columns: []table.Column{{Name: "rho"}, {Name: "mean"}}}
	t.AddRow(0.9, 2.6140000000000003)
	t.AddRow(0.99, math.Inf(1))
	if err := t.WriteCSV(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// rho,mean
	// 0.9,2.6140000000000003
	// 0.99,
}
