package table

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strconv"
)

// WriteJSON writes t as one JSON object, indented by two spaces, with one
// row per line and a trailing newline:
//
//	{
//	  "meta": {
//	    "title": "…",
//	    "partial": false,
//	    "fields": [
//	      {"key": "version", "value": "…"},
//	      {"key": "seed", "value": "1"}
//	    ]
//	  },
//	  "columns": ["policy", "rho", "mean"],
//	  "rows": [
//	    ["jsq", 0.9, 2.614]
//	  ],
//	  "warnings": []
//	}
//
// Meta fields are an array of {"key", "value"} objects, in the order given,
// so the output bytes are deterministic and the order survives decoding.
// Floats are written as encoding/json writes them (the shortest form that
// reads back bit for bit); missing, NaN and ±Inf cells are null. Notes are
// text-only and not written. Strings are not HTML-escaped.
func (t *Table) WriteJSON(w io.Writer) error {
	if err := t.check(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("{\n  \"meta\": {\n")
	bw.WriteString("    \"title\": " + jsonString(t.Title) + ",\n")
	bw.WriteString("    \"partial\": " + strconv.FormatBool(t.Partial) + ",\n")
	bw.WriteString("    \"fields\": [")
	for i, f := range t.Meta {
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n      {\"key\": " + jsonString(f.Key) + ", \"value\": " + jsonString(f.Value) + "}")
	}
	if len(t.Meta) > 0 {
		bw.WriteString("\n    ")
	}
	bw.WriteString("]\n  },\n")

	bw.WriteString("  \"columns\": [")
	for j, c := range t.Columns {
		if j > 0 {
			bw.WriteString(", ")
		}
		bw.WriteString(jsonString(c.Name))
	}
	bw.WriteString("],\n")

	bw.WriteString("  \"rows\": [")
	for i, row := range t.Rows {
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n    [")
		for j, v := range row {
			if j > 0 {
				bw.WriteString(", ")
			}
			bw.WriteString(jsonCell(normalise(v)))
		}
		bw.WriteString("]")
	}
	if len(t.Rows) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("],\n")

	bw.WriteString("  \"warnings\": [")
	for i, m := range t.Warnings {
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n    " + jsonString(m))
	}
	if len(t.Warnings) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]\n}\n")
	return bw.Flush()
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
