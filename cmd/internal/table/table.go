package table

import (
	"fmt"
	"io"
)

// Column describes one column of a Table.
type Column struct {
	// Name is the header of the column.
	Name string

	// Digits is the number of significant digits of float cells in text
	// output. Zero (or a negative value) means 4; values above 17 mean 17.
	// CSV and JSON always write floats that round-trip.
	Digits int

	// Exact writes float cells in text, too, as the shortest decimal that
	// reads back (as CSV does), whatever Digits: for columns that echo an
	// input (a load of 0.999999 is not "1").
	Exact bool
}

// Field is one ordered meta entry: how a table was made (version, seed,
// every parameter). Keys are unique and may not be title, command,
// partial, notes or warnings. The value is text; JSON writes it as a
// number or a boolean when it reads as one (see WriteJSON).
type Field struct {
	Key, Value string
}

// Table is the one table model that every herd command writes.
//
// Cells are string, int, int64, float64, bool or nil (missing). Other
// integer and float kinds are accepted and widened; any other value is
// written as a string with fmt.Sprint.
type Table struct {
	Title    string   // printed above the text table ("# title"); in JSON meta
	Meta     []Field  // how it was made: version, seed, every parameter, in order
	Columns  []Column // column names and text precision
	Rows     [][]any  // one slice of len(Columns) cells per row
	Warnings []string // printed as "warning: ..." in text; "warnings" in JSON
	Partial  bool     // an interrupted run: the rows are the finished ones only
	Notes    []string // lines printed under the text table (summaries); "notes" in JSON and CSV
	Command  string   // the command line that made the table; CSV and JSON only
}

// AddRow appends a row. It panics if the number of cells differs from the
// number of columns: that is a programming error, not user input.
func (t *Table) AddRow(cells ...any) {
	if len(cells) != len(t.Columns) {
		panic(fmt.Sprintf("table: row has %d cells, want %d", len(cells), len(t.Columns)))
	}
	t.Rows = append(t.Rows, cells)
}

// Formats lists the formats that Write accepts, in the order they are
// documented.
var Formats = []string{"text", "csv", "json"}

// ParseFormat validates the value of a --format flag.
func ParseFormat(s string) (string, error) {
	switch s {
	case "text", "csv", "json":
		return s, nil
	}
	return "", fmt.Errorf("--format %q: want text, csv or json", s)
}

// Write writes t to w in format "text", "csv" or "json".
func (t *Table) Write(w io.Writer, format string) error {
	f, err := ParseFormat(format)
	if err != nil {
		return fmt.Errorf("table: %w", err)
	}
	switch f {
	case "csv":
		return t.WriteCSV(w)
	case "json":
		return t.WriteJSON(w)
	default:
		return t.WriteText(w)
	}
}

// check reports rows whose length differs from the number of columns,
// which can only happen when Rows was filled without AddRow.
func (t *Table) check() error {
	if err := t.checkMeta(); err != nil {
		return err
	}
	for i, r := range t.Rows {
		if len(r) != len(t.Columns) {
			return fmt.Errorf("table: row %d has %d cells, want %d", i, len(r), len(t.Columns))
		}
	}
	return t.checkTypes()
}

// jsonTypes names the JSON type each cell kind is written as: integers
// and floats are both numbers.
var jsonTypes = [...]string{kindMissing: "", kindInt: "number", kindFloat: "number", kindBool: "boolean", kindString: "string"}

// checkTypes reports a column whose present cells are not all of one JSON
// type (a period column holding "aperiodic" in one row and 2 in another):
// a script reading the CSV or JSON must be able to give each column one
// type. Missing cells (null) go with any type.
func (t *Table) checkTypes() error {
	for j, c := range t.Columns {
		first, at := "", 0
		for i, r := range t.Rows {
			typ := jsonTypes[normalise(r[j]).kind]
			switch {
			case typ == "":
			case first == "":
				first, at = typ, i
			case typ != first:
				return fmt.Errorf("table: column %q holds a %s in row %d and a %s in row %d", c.Name, first, at, typ, i)
			}
		}
	}
	return nil
}
