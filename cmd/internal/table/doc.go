// Package table is herd's one table model and its three writers.
//
// A command builds a [Table] — title, ordered meta fields saying how it was
// made, columns, rows of plain cells, warnings — and writes it with
// [Table.Write] in the format chosen by --format:
//
//   - text, for people: an optional "# title" line, one "# key=value ..."
//     meta line, the aligned table (numbers right-aligned, strings
//     left-aligned), the notes, "warning: ..." lines and, for an interrupted
//     run, "# partial: interrupted, finished rows only".
//   - csv, for machines: one header row and the data rows; floats
//     round-trip (strconv 'g', -1); missing, NaN and ±Inf cells are empty
//     fields. No meta, notes or warnings.
//   - json: {"meta", "columns", "rows", "warnings"} with floats that
//     round-trip and null for missing, NaN and ±Inf cells. Meta fields are an
//     array of {"key", "value"} objects so that their order survives.
//
// The model follows golang.org/x/perf/cmd/benchstat: one table, several
// writers, golden-file tests (go test ./cmd/internal/table -update).
package table
