package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// The README's commands run here, so that it cannot drift:
//
//   - A worked example is a ```console block whose first line is
//     "$ herd ARGS" and whose other lines are its output. TestReadmeExamples
//     runs it in-process and compares stdout with the block byte for byte
//     (go test ./cmd/herd -run TestReadmeExamples -update rewrites the
//     outputs in README.md).
//   - Every other herd command in a fenced block (a line starting "herd "
//     or "go run ./cmd/herd", or "<(herd …)") is checked by
//     TestReadmeCommands: one that writes files (--out, --plot, --points,
//     herd figures, herd merge) only has its flags parsed (--help appended:
//     the names and the values' syntax are checked, nothing runs); herd help
//     runs in full; every other runs with a cancelled context, which checks
//     its flags and their ranges and stops before the work (exit 1,
//     "interrupted"). Any other exit but 0 fails.
//   - TestReadmeTestCommand keeps the test command that .ci/run runs.

const readmePath = "../../README.md"

// readmeBlock is a fenced code block of the README.
type readmeBlock struct {
	info  string   // the word after the opening fence
	line  int      // the 1-based line of its first content line
	lines []string // its content
}

// readmeBlocks returns the fenced code blocks of the README.
func readmeBlocks(t *testing.T) []readmeBlock {
	t.Helper()
	b, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	return parseBlocks(string(b))
}

func parseBlocks(text string) []readmeBlock {
	var blocks []readmeBlock
	var cur *readmeBlock
	for i, l := range strings.Split(text, "\n") {
		switch {
		case cur == nil && strings.HasPrefix(l, "```"):
			cur = &readmeBlock{info: strings.TrimSpace(strings.TrimLeft(l, "`")), line: i + 2}
		case cur != nil && strings.TrimSpace(l) == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, l)
		}
	}
	return blocks
}

// shellWords splits a command line as a shell would, for the plain
// commands a README shows: words separated by blanks, single and double
// quotes, backslash escapes. It stops at a comment or at an unquoted
// redirection, pipe or list operator (what follows is not herd's), and
// refuses expansions, which the test cannot reproduce.
func shellWords(line string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, w.String())
			w.Reset()
			inWord = false
		}
	}
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == ' ' || r == '\t':
			flush()
		case r == '#' && !inWord:
			flush()
			return words, nil
		case strings.ContainsRune("><|;&)", r):
			flush()
			return words, nil
		case r == '$' || r == '`' || r == '*' || r == '?' || r == '~':
			return nil, fmt.Errorf("%q: shell expansion (%c) in a README command; write it literally", line, r)
		case r == '\\':
			if i+1 < len(rs) {
				i++
				w.WriteRune(rs[i])
			}
			inWord = true
		case r == '\'' || r == '"':
			j := i + 1
			for j < len(rs) && rs[j] != r {
				j++
			}
			if j == len(rs) {
				return nil, fmt.Errorf("%q: unterminated quote", line)
			}
			w.WriteString(string(rs[i+1 : j]))
			i = j
			inWord = true
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	flush()
	return words, nil
}

func TestShellWords(t *testing.T) {
	t.Parallel()
	cases := []struct {
		line string
		want []string
	}{
		{"herd sim --load 0.9", []string{"herd", "sim", "--load", "0.9"}},
		{"herd a 'b c' \"d e\" f\\ g", []string{"herd", "a", "b c", "d e", "f g"}},
		{"herd merge sweep > table.csv", []string{"herd", "merge", "sweep"}},
		{"herd edge   # a comment", []string{"herd", "edge"}},
		{"herd completion bash)", []string{"herd", "completion", "bash"}},
		{"herd x --a=b#c", []string{"herd", "x", "--a=b#c"}},
	}
	for _, tc := range cases {
		got, err := shellWords(tc.line)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("shellWords(%q) = %q, %v; want %q", tc.line, got, err, tc.want)
		}
	}
	if _, err := shellWords("herd sim --out $DIR"); err == nil {
		t.Error("shellWords accepted an expansion")
	}
}

// readmeExample is a worked example: herd's arguments and its output.
type readmeExample struct {
	line   int // the README line of the command
	args   []string
	output string
}

var promptRE = regexp.MustCompile(`^\$ herd( |$)`)

func readmeExamples(t *testing.T) []readmeExample {
	t.Helper()
	var out []readmeExample
	for _, b := range readmeBlocks(t) {
		if b.info != "console" {
			continue
		}
		if len(b.lines) == 0 || !promptRE.MatchString(b.lines[0]) {
			t.Errorf("README.md:%d: a console block must start with \"$ herd …\"", b.line)
			continue
		}
		words, err := shellWords(strings.TrimPrefix(b.lines[0], "$ "))
		if err != nil {
			t.Errorf("README.md:%d: %v", b.line, err)
			continue
		}
		output := ""
		if len(b.lines) > 1 {
			output = strings.Join(b.lines[1:], "\n") + "\n"
		}
		out = append(out, readmeExample{line: b.line, args: words[1:], output: output})
	}
	return out
}

// TestReadmeExamples runs each worked example and compares its stdout with
// the README's.
func TestReadmeExamples(t *testing.T) {
	examples := readmeExamples(t)
	if len(examples) < 5 {
		t.Fatalf("README.md has %d worked examples, want at least 5", len(examples))
	}
	got := make([]string, len(examples))
	t.Run("run", func(t *testing.T) {
		for i, ex := range examples {
			t.Run(strings.Join(ex.args, "_"), func(t *testing.T) {
				t.Parallel()
				var stdout, stderr bytes.Buffer
				if code := run(context.Background(), ex.args, &stdout, &stderr); code != 0 {
					t.Fatalf("README.md:%d: herd %s: exit %d: %s", ex.line, strings.Join(ex.args, " "), code, stderr.String())
				}
				got[i] = stdout.String()
				if got[i] != ex.output && !*update {
					t.Errorf("README.md:%d: herd %s prints, the README shows:\n%s\n(run go test ./cmd/herd -run TestReadmeExamples -update to rewrite the README's output)",
						ex.line, strings.Join(ex.args, " "), lineDiff(got[i], ex.output))
				}
			})
		}
	})
	if *update && !t.Failed() {
		if err := rewriteExamples(readmePath, got); err != nil {
			t.Fatal(err)
		}
	}
}

// lineDiff shows the lines where got and want differ.
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var b strings.Builder
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			fmt.Fprintf(&b, "  output line %d\n    herd:   %q\n    README: %q\n", i+1, gl, wl)
		}
	}
	return b.String()
}

// rewriteExamples replaces the output lines of the README's console blocks,
// in order, with outputs.
func rewriteExamples(path string, outputs []string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.Split(string(b), "\n")
	var res []string
	n := 0
	for i := 0; i < len(lines); i++ {
		res = append(res, lines[i])
		if lines[i] != "```console" {
			continue
		}
		if i+1 >= len(lines) || n >= len(outputs) {
			return fmt.Errorf("%s:%d: console block without its command or its output", path, i+1)
		}
		i++
		res = append(res, lines[i]) // the command
		for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "```" {
			i++ // the old output
		}
		res = append(res, strings.Split(strings.TrimSuffix(outputs[n], "\n"), "\n")...)
		n++
	}
	if n != len(outputs) {
		return fmt.Errorf("%s: %d console blocks, %d outputs", path, n, len(outputs))
	}
	return os.WriteFile(path, []byte(strings.Join(res, "\n")), 0o644)
}

// readmeCommand is a herd command line of the README that is not a worked
// example.
type readmeCommand struct {
	line int
	args []string
}

var herdCallRE = regexp.MustCompile(`^(?:herd|go run \./cmd/herd)(?: |$)|<\(herd `)

func readmeCommands(t *testing.T) []readmeCommand {
	t.Helper()
	var out []readmeCommand
	for _, b := range readmeBlocks(t) {
		if b.info == "console" {
			continue
		}
		for i := 0; i < len(b.lines); i++ {
			line, at := b.lines[i], b.line+i
			for strings.HasSuffix(line, "\\") && i+1 < len(b.lines) { // a continued line
				i++
				line = strings.TrimSuffix(line, "\\") + " " + b.lines[i]
			}
			loc := herdCallRE.FindStringIndex(line)
			if loc == nil {
				continue
			}
			s := line[loc[0]:]
			s = strings.TrimPrefix(s, "<(")
			s = strings.TrimPrefix(s, "go run ./cmd/")
			words, err := shellWords(s)
			if err != nil {
				t.Errorf("README.md:%d: %v", at, err)
				continue
			}
			out = append(out, readmeCommand{line: at, args: words[1:]})
		}
	}
	return out
}

// writesFiles reports whether a command line would write files.
func writesFiles(args []string) bool {
	if len(args) > 0 && (args[0] == "figures" || args[0] == "merge") {
		return true
	}
	for _, a := range args {
		for _, f := range []string{"--out", "--plot", "--points"} {
			if a == f || strings.HasPrefix(a, f+"=") {
				return true
			}
		}
	}
	return false
}

// TestReadmeCommands checks that every other herd command of the README is
// valid usage (see the top of this file for how each is checked).
func TestReadmeCommands(t *testing.T) {
	cmds := readmeCommands(t)
	if len(cmds) < 8 {
		t.Fatalf("found %d herd commands in README.md's code blocks; the parser is broken", len(cmds))
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range cmds {
		t.Run(strings.Join(c.args, "_"), func(t *testing.T) {
			t.Parallel()
			args, ctx, how := c.args, cancelled, "with a cancelled context"
			switch {
			case len(args) > 0 && args[0] == "help":
				ctx, how = context.Background(), "in full"
			case writesFiles(args):
				args, how = append(append([]string{}, args...), "--help"), "with --help appended (flags parsed only)"
			}
			var stdout, stderr bytes.Buffer
			code := run(ctx, args, &stdout, &stderr)
			// Exit 0, or, with a cancelled context, 1 for a run stopped
			// before its work (any other failure is a real one).
			stopped := ctx == cancelled && code == 1 && strings.Contains(stderr.String(), "interrupted")
			if code != 0 && !stopped {
				t.Errorf("README.md:%d: herd %s, run %s: exit %d: %s", c.line, strings.Join(c.args, " "), how, code, stderr.String())
			}
		})
	}
}

// TestReadmeTestCommand keeps the README's test command, which .ci/run runs
// as it stands, and its quick start.
func TestReadmeTestCommand(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\ngo test ./...     # the tests\n", "\ngo run ./cmd/herd # the main job"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README.md lacks the line %q", strings.TrimSpace(want))
		}
	}
	if !regexp.MustCompile(`(?m)^go test \./\.\.\.$`).Match(ci) {
		t.Error(".ci/run no longer runs the README's test command, go test ./..., as a line of its own")
	}
	if !strings.Contains(string(readme), regenerateFigures) {
		t.Errorf("README.md lacks the command that regenerates cmd/herd/figures: %s", regenerateFigures)
	}
	if n := strings.Count(string(readme), "\n"); n > 400 {
		t.Errorf("README.md has %d lines, want at most 400: the reference belongs in herd help CMD", n)
	}
}

// wallTimeRE matches a stated duration: a number followed by a unit of
// time ("8 min", "42 s", "2 minutes", "3 h", "16 ms"), or "minutes" and
// "hours" after a quantity word. The heartbeat interval, "every 30 s", is
// a setting, not a measurement, and is allowed.
var wallTimeRE = regexp.MustCompile(`(?i)\b[0-9][0-9.,]*\s*(ms|s|sec|secs|seconds?|min|mins|minutes?|h|hours?|days?)\b|\b(a|few|several|take|takes|took)\s+(minutes|hours|seconds)\b`)

// TestHelpNoWallTimes: help texts (summaries, flags, long help) state no
// wall times.
func TestHelpNoWallTimes(t *testing.T) {
	t.Parallel()
	texts := map[string]string{}
	for name, s := range commandHelp {
		texts["herd help "+name] = s
	}
	for name, s := range helpTopics {
		texts["herd help "+name] = s
	}
	for _, c := range commands() {
		texts["summary of "+c.name] = c.summary
	}
	for cmd, flags := range commandFlags() {
		for _, f := range flags {
			if f.Value.Type() != "duration" { // its range is a setting, not a measurement
				texts["herd "+cmd+" --"+f.Name] = f.Usage
			}
		}
	}
	for name, s := range texts {
		for _, m := range wallTimeRE.FindAllString(s, -1) {
			if strings.HasSuffix(m, "30 s") && strings.Contains(s, "every 30 s") {
				continue
			}
			t.Errorf("%s states a time, %q: help states no wall times", name, m)
		}
	}
}

// TestHelpLong: herd help CMD prints a command's flags, then its long help;
// every command but completion and version has one, and every text names a
// command that exists.
func TestHelpLong(t *testing.T) {
	t.Parallel()
	for _, c := range commands() {
		text, ok := commandHelp[c.name]
		if c.name == "completion" || c.name == "version" {
			continue
		}
		if !ok {
			t.Errorf("herd %s has no long help in helptext.go", c.name)
			continue
		}
		out, errs, code := herd(t, "help", c.name)
		if code != 0 || !strings.Contains(out, "\nFlags") || !strings.HasSuffix(out, "\n\n"+text) {
			t.Errorf("herd help %s: exit %d, stderr %q; stdout does not end with its long help:\n%s", c.name, code, errs, out)
		}
	}
	for name := range commandHelp {
		if _, ok := lookup(name); !ok {
			t.Errorf("helptext.go has a long help for %q, which is not a command", name)
		}
	}
	for _, args := range [][]string{{"help", "version"}, {"help", "output"}, {"help", "limits"}} {
		if out, errs, code := herd(t, args...); code != 0 || out == "" {
			t.Errorf("herd %s: exit %d, stderr %q", strings.Join(args, " "), code, errs)
		}
	}
}

// TestHelpColumns: the columns a long help lists are the ones the command
// writes, in order (checked by running cheap instances with --format csv).
func TestHelpColumns(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"edge":       {"edge", "--dispatchers", "3", "--load", "0.8"},
		"point":      {"point", "--refresh", "400"},
		"model":      {"model", "--policy", "random"},
		"hysteresis": {"hysteresis", "--refresh", "1100", "--starts", "balanced", "--bistable=false"},
		"sim":        {"sim", "--servers", "10", "--horizon", "100", "--runs", "2"},
		"balls":      {"balls", "--bins", "64", "--runs", "2"},
		"plan":       {"plan", "--servers", "20", "--dispatchers", "2", "--refresh", "50ms", "--service", "50ms", "--load", "0.5", "--runs", "2", "--refreshes", "20", "--no-bracket"},
		"law":        {"law", "--dispatchers", "4,5,6", "--load", "0.8", "--ladder", "0.8,0.85", "--limit-step", "0"},
	}
	colsRE := regexp.MustCompile(`(?s)Columns \(CSV order\): (.*?)\.(\s|$)|CSV columns: (.*?)\.(\s|$)`)
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := colsRE.FindStringSubmatch(commandHelp[name])
			if m == nil {
				t.Fatalf("herd help %s lists no columns", name)
			}
			list := stripParens(m[1] + m[3])
			var want []string
			for _, part := range strings.Split(list, ",") {
				w := strings.Fields(strings.TrimSpace(part))
				if len(w) > 0 {
					want = append(want, w[0])
				}
			}
			out, errs, code := herd(t, append(args, "--format", "csv")...)
			if code != 0 {
				t.Fatalf("herd %s: exit %d: %s", strings.Join(args, " "), code, errs)
			}
			header := strings.SplitN(out, "\n", 2)[0]
			var got []string
			for _, c := range strings.Split(header, ",") {
				if !strings.HasPrefix(c, "meta_") {
					got = append(got, c)
				}
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("herd help %s lists the columns\n  %s\nherd %s writes\n  %s", name, strings.Join(want, ","), name, strings.Join(got, ","))
			}
		})
	}
}

// stripParens removes parenthesised text, nested parentheses included.
func stripParens(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}
