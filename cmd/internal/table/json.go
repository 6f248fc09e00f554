package table

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strconv"
)

// WriteJSON writes t as one JSON object that pandas, R's jsonlite and
// encoding/json read without a schema: "meta" says how the table was made,
// "columns" gives the column order and "rows" holds one object per row,
// keyed by column name. It is indented by two spaces, with one row per line
// and a trailing newline:
//
//	{
//	  "meta": {
//	    "title": "…",
//	    "command": "herd sim --seed 1",
//	    "partial": false,
//	    "version": "0.1.0",
//	    "seed": 1,
//	    "notes": [],
//	    "warnings": []
//	  },
//	  "columns": ["policy", "rho", "mean"],
//	  "rows": [
//	    {"policy": "jsq", "rho": 0.9, "mean": 2.614}
//	  ]
//	}
//
// The meta fields follow title, command and partial in the order given,
// typed: a value that reads as a JSON number is a number (integers only up
// to 2⁵³ in magnitude, so that every reader gets them back exactly), "true"
// and "false" are booleans, anything else a string. Cells: floats as
// encoding/json writes them (the shortest form that reads back bit for
// bit), integers in decimal, booleans, strings; missing, NaN and ±Inf cells
// are null. Strings are not HTML-escaped.
func (t *Table) WriteJSON(w io.Writer) error {
	if err := t.check(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("{\n  \"meta\": {\n")
	bw.WriteString("    \"title\": " + jsonString(t.Title) + ",\n")
	bw.WriteString("    \"command\": " + jsonString(t.Command) + ",\n")
	bw.WriteString("    \"partial\": " + strconv.FormatBool(t.Partial) + ",\n")
	for _, f := range t.Meta {
		bw.WriteString("    " + jsonString(f.Key) + ": " + typedValue(f.Value) + ",\n")
	}
	bw.WriteString("    \"notes\": " + jsonStrings(t.Notes, "    ") + ",\n")
	bw.WriteString("    \"warnings\": " + jsonStrings(t.Warnings, "    ") + "\n")
	bw.WriteString("  },\n")

	names := make([]string, len(t.Columns))
	bw.WriteString("  \"columns\": [")
	for j, c := range t.Columns {
		names[j] = jsonString(c.Name)
		if j > 0 {
			bw.WriteString(", ")
		}
		bw.WriteString(names[j])
	}
	bw.WriteString("],\n")

	bw.WriteString("  \"rows\": [")
	for i, row := range t.Rows {
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n    {")
		for j, v := range row {
			if j > 0 {
				bw.WriteString(", ")
			}
			bw.WriteString(names[j] + ": " + jsonCell(normalise(v)))
		}
		bw.WriteString("}")
	}
	if len(t.Rows) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]\n}\n")
	return bw.Flush()
}

// jsonStrings writes a list of strings, one per line at indent+2.
func jsonStrings(list []string, indent string) string {
	if len(list) == 0 {
		return "[]"
	}
	var b bytes.Buffer
	b.WriteString("[")
	for i, s := range list {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n" + indent + "  " + jsonString(s))
	}
	b.WriteString("\n" + indent + "]")
	return b.String()
}

func jsonCell(c cell) string {
	switch c.kind {
	case kindInt:
		return strconv.FormatInt(c.i, 10)
	case kindFloat:
		b, err := json.Marshal(c.f) // finite: cannot fail
		if err != nil {
			return "null"
		}
		return string(b)
	case kindBool:
		return strconv.FormatBool(c.b)
	case kindString:
		return jsonString(c.s)
	default:
		return "null"
	}
}

// jsonString returns s as a JSON string literal without HTML escaping.
func jsonString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes (invalid UTF-8 becomes U+FFFD)
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}
