package compare

import (
	"strings"
	"testing"
)

// index.md gives the command that makes the figures and each one alone,
// shows each plot as PNG (else SVG; no image when neither is written)
// and links every file of it, the CSV last.
func TestFigureIndexMarkdown(t *testing.T) {
	t.Parallel()
	x := FigureIndex{Version: "9", Quick: true, Seed: 7, Command: "herd figures out", Flags: " --quick --seed 7",
		Formats: []string{"svg", "png"}, Figures: Figures()[:1],
		Plots: [][]*FigurePlot{{{Stem: "fig1", Title: "T", XCol: "x", YCol: "y", ErrCol: "e", ErrMeaning: "its bar", Notes: []string{"a note"}}}}}
	md := x.Markdown()
	for _, want := range []string{
		"Made by herd 9 with quick, CI-sized run lengths, master seed 7: `herd figures out --quick --seed 7`.\n",
		"Reproduce alone: `herd figures out --only 1 --quick --seed 7`\n",
		"![T](fig1.png)\n",
		"- files: [fig1.svg](fig1.svg), [fig1.png](fig1.png), [fig1.csv](fig1.csv)\n",
		"- CSV columns: `series,kind,x,y,e,se,runs,note`; `e` is its bar\n- a note\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("index.md lacks %q:\n%s", want, md)
		}
	}
	x.Formats = []string{"pdf"}
	if md := x.Markdown(); strings.Contains(md, "![") || !strings.Contains(md, "[fig1.pdf](fig1.pdf), [fig1.csv](fig1.csv)") {
		t.Errorf("PDF only: want no image and the PDF and CSV linked:\n%s", md)
	}
}
