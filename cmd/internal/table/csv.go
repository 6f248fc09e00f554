package table

import (
	"encoding/csv"
	"io"
	"strconv"
)

// WriteCSV writes t for machines, with no comment lines: one header row
// of column names, then the rows. Floats are written with
// strconv.FormatFloat(f, 'g', -1, 64), so they read back bit for bit;
// integers in decimal; bools as true or false; missing, NaN and ±Inf cells
// as empty fields.
//
// A table that says how it was made (a title, a command line or meta
// fields) gets further columns after its own, the same on every row:
// meta_title, meta_command, meta_KEY for each meta field in order,
// meta_notes and meta_warnings (each joined with " | ") and meta_partial
// (true for an interrupted run). So one read_csv call gives the data with
// its seed, version, parameters, fits and warnings, and the table's own
// columns keep their documented order. A table with none of these (the CSV
// behind a figure) is data only. A table with no rows has only the header.
//
// A row whose only cell is missing is written as "" so that CSV readers do
// not skip it.
func (t *Table) WriteCSV(w io.Writer) error {
	if err := t.check(); err != nil {
		return err
	}
	metaNames, metaValues := t.metaColumns()
	cw := csv.NewWriter(w)
	rec := make([]string, len(t.Columns), len(t.Columns)+len(metaNames))
	for j, c := range t.Columns {
		rec[j] = c.Name
	}
	if err := cw.Write(append(rec, metaNames...)); err != nil {
		return err
	}
	for _, row := range t.Rows {
		for j, v := range row {
			rec[j] = csvCell(normalise(v))
		}
		if len(rec) == 1 && rec[0] == "" && len(metaNames) == 0 {
			// encoding/csv writes a lone empty field as an empty line,
			// which readers skip; write it quoted so the row survives.
			cw.Flush()
			if _, err := io.WriteString(w, "\"\"\n"); err != nil {
				return err
			}
			continue
		}
		if err := cw.Write(append(rec, metaValues...)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func csvCell(c cell) string {
	switch c.kind {
	case kindInt:
		return strconv.FormatInt(c.i, 10)
	case kindFloat:
		return strconv.FormatFloat(c.f, 'g', -1, 64)
	case kindBool:
		return strconv.FormatBool(c.b)
	case kindString:
		return c.s
	default:
		return ""
	}
}
