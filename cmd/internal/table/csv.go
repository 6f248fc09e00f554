package table

import (
	"encoding/csv"
	"io"
	"strconv"
)

// WriteCSV writes t for machines: one header row of column names, then the
// rows. Floats are written with strconv.FormatFloat(f, 'g', -1, 64), so they
// read back bit for bit; integers in decimal; bools as true or false;
// missing, NaN and ±Inf cells as empty fields. The title, meta, notes and
// warnings are not written: the CSV is data only. A row whose only cell is
// missing is written as "" so that CSV readers do not skip it.
func (t *Table) WriteCSV(w io.Writer) error {
	if err := t.check(); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	rec := make([]string, len(t.Columns))
	for j, c := range t.Columns {
		rec[j] = c.Name
	}
	if err := cw.Write(rec); err != nil {
		return err
	}
	for _, row := range t.Rows {
		for j, v := range row {
			rec[j] = csvCell(normalise(v))
		}
		if len(rec) == 1 && rec[0] == "" {
			// encoding/csv writes a lone empty field as an empty line,
			// which readers skip; write it quoted so the row survives.
			cw.Flush()
			if _, err := io.WriteString(w, "\"\"\n"); err != nil {
				return err
			}
			continue
		}
		if err := cw.Write(rec); err != nil {
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
