package table

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// reservedMeta are the meta keys the writers use themselves; a Field may
// not take them.
var reservedMeta = []string{"title", "command", "partial", "notes", "warnings"}

// jsonNumber is the grammar of a JSON number (RFC 8259 §6).
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// maxExactInt is 2⁵³: integers above it do not survive a float64 reader.
const maxExactInt = 1 << 53

// typedValue returns a meta value as the JSON literal of its type: a
// number when the string is a JSON number that a float64 reader gets back
// exactly enough (finite; integers up to 2⁵³ in magnitude), true or false
// for "true" and "false", and otherwise a JSON string.
func typedValue(s string) string {
	switch s {
	case "true", "false":
		return s
	}
	if jsonNumber.MatchString(s) {
		f, err := strconv.ParseFloat(s, 64)
		integer := !strings.ContainsAny(s, ".eE")
		if err == nil && (!integer || (f <= maxExactInt && f >= -maxExactInt)) {
			return s
		}
	}
	return jsonString(s)
}

// hasMeta reports whether t says how it was made; CSV output then carries
// the meta columns.
func (t *Table) hasMeta() bool {
	return t.Title != "" || t.Command != "" || len(t.Meta) > 0
}

// checkMeta reports meta keys that are empty, repeated or reserved, and
// repeated column names (JSON rows are objects keyed by column name).
func (t *Table) checkMeta() error {
	seen := map[string]bool{}
	for _, r := range reservedMeta {
		seen[r] = true
	}
	for _, f := range t.Meta {
		if f.Key == "" {
			return fmt.Errorf("table: empty meta key")
		}
		if seen[f.Key] {
			return fmt.Errorf("table: meta key %q is repeated or reserved", f.Key)
		}
		seen[f.Key] = true
	}
	cols := map[string]bool{}
	for _, c := range t.Columns {
		if cols[c.Name] {
			return fmt.Errorf("table: column %q is repeated", c.Name)
		}
		cols[c.Name] = true
	}
	return nil
}

// joinLines joins notes or warnings into one CSV cell.
func joinLines(lines []string) string { return strings.Join(lines, " | ") }

// metaColumns returns the names and values of the columns CSV appends to
// a table that says how it was made: meta_title, meta_command, meta_KEY
// for each meta field, meta_notes, meta_warnings and meta_partial.
func (t *Table) metaColumns() (names, values []string) {
	if !t.hasMeta() {
		return nil, nil
	}
	names = append(names, "meta_title", "meta_command")
	values = append(values, t.Title, t.Command)
	for _, f := range t.Meta {
		names = append(names, "meta_"+f.Key)
		values = append(values, f.Value)
	}
	names = append(names, "meta_notes", "meta_warnings", "meta_partial")
	values = append(values, joinLines(t.Notes), joinLines(t.Warnings), strconv.FormatBool(t.Partial))
	return names, values
}
