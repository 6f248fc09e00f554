package table

import (
	"bufio"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// missingText stands for nil, NaN and ±Inf cells in text output.
const missingText = "-"

// colSep separates text columns.
const colSep = "  "

// WriteText writes t for people:
//
//	# Title
//	# key=value key="value with spaces" ...
//	name  rho    mean
//	jsq   0.9   2.614
//	notes...
//	warning: ...
//	# partial: interrupted, finished rows only
//
// The title and meta lines appear only when set. Columns are separated by
// two spaces; a cell that is a number is right-aligned, anything else
// left-aligned, and headers follow the alignment of the column's first
// non-missing cell. Float cells have the column's Digits significant
// digits (see Column); missing, NaN and ±Inf cells print "-".
//
// Alignment is done here rather than with text/tabwriter, which can only
// align every column the same way.
func (t *Table) WriteText(w io.Writer) error {
	if err := t.check(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	if t.Title != "" {
		bw.WriteString("# " + oneLine(t.Title) + "\n")
	}
	if len(t.Meta) > 0 {
		bw.WriteString("#")
		for _, f := range t.Meta {
			bw.WriteString(" " + oneLine(f.Key) + "=" + metaValue(f.Value))
		}
		bw.WriteString("\n")
	}
	if len(t.Columns) > 0 {
		t.writeGrid(bw)
	}
	for _, n := range t.Notes {
		bw.WriteString(n + "\n")
	}
	for _, m := range t.Warnings {
		bw.WriteString("warning: " + m + "\n")
	}
	if t.Partial {
		bw.WriteString("# partial: interrupted, finished rows only\n")
	}
	return bw.Flush()
}

// writeGrid writes the header and rows, aligned.
func (t *Table) writeGrid(bw *bufio.Writer) {
	nc := len(t.Columns)
	text := make([][]string, 1+len(t.Rows))
	text[0] = make([]string, nc)
	right := make([]bool, nc)
	decided := make([]bool, nc)
	for j, c := range t.Columns {
		text[0][j] = oneLine(c.Name)
	}
	for i, row := range t.Rows {
		text[i+1] = make([]string, nc)
		for j, v := range row {
			c := normalise(v)
			text[i+1][j] = textCell(c, t.Columns[j].Digits)
			if t.Columns[j].Exact && c.kind == kindFloat {
				text[i+1][j] = exactText(c.f)
			}
			if c.kind != kindMissing && !decided[j] {
				right[j], decided[j] = c.numeric(), true
			}
		}
	}
	width := make([]int, nc)
	for _, r := range text {
		for j, s := range r {
			width[j] = max(width[j], utf8.RuneCountInString(s))
		}
	}
	var line strings.Builder
	for _, r := range text {
		line.Reset()
		for j, s := range r {
			if j > 0 {
				line.WriteString(colSep)
			}
			pad := strings.Repeat(" ", width[j]-utf8.RuneCountInString(s))
			if right[j] {
				line.WriteString(pad + s)
			} else {
				line.WriteString(s + pad)
			}
		}
		bw.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

// textCell formats one normalised cell for text output.
// exactText is the shortest decimal of f that reads back, without an
// exponent for 1e-4 <= |f| < 1e9 as formatText.
func exactText(f float64) string {
	if a := math.Abs(f); a >= 1e-4 && a < 1e9 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func textCell(c cell, digits int) string {
	switch c.kind {
	case kindInt:
		return strconv.FormatInt(c.i, 10)
	case kindFloat:
		return formatText(c.f, digits)
	case kindBool:
		return strconv.FormatBool(c.b)
	case kindString:
		return oneLine(c.s)
	default:
		return missingText
	}
}

// oneLine quotes s if it holds a line break or tab, which would break the
// layout.
func oneLine(s string) string {
	if strings.ContainsAny(s, "\n\r\t") {
		return strconv.Quote(s)
	}
	return s
}

// metaValue quotes a meta value that is empty or would not read back as one
// key=value word.
func metaValue(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\n\r\"=#") {
		return strconv.Quote(s)
	}
	return s
}
