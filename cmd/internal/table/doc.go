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
//   - csv, for machines, with no comment lines: one header row and the data
//     rows; floats round-trip (strconv 'g', -1); missing, NaN and ±Inf cells
//     are empty fields. A table that says how it was made also gets the
//     columns meta_title, meta_command, meta_KEY per meta field,
//     meta_notes, meta_warnings and meta_partial after its own, the same
//     on every row (see [Table.WriteCSV]).
//   - json: {"meta": {title, command, partial, the meta fields as typed
//     values, notes, warnings}, "columns": [names in order], "rows": [one
//     object per row keyed by column name]}, with floats that round-trip
//     and null for missing, NaN and ±Inf cells (see [Table.WriteJSON]).
//
// Both load in one call: pandas.read_csv, or pandas.DataFrame(doc["rows"])
// after json.load; in R read.csv, or jsonlite::fromJSON(file)$rows.
//
// The model follows golang.org/x/perf/cmd/benchstat: one table, several
// writers, golden-file tests (go test ./cmd/internal/table -update).
package table
