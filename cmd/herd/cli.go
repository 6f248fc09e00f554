package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

// This file holds the command line's conveniences: suggestions for
// mistyped commands and flags, the flag listing of -h, and the shell
// completion scripts of herd completion.

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// suggest returns the candidates closest to word: within edit distance 2
// (1 for words of up to 5 runes), or having word as a prefix, nearest first,
// ties in the order given.
func suggest(word string, candidates []string) []string {
	type cand struct {
		s string
		d int
	}
	limit := 2
	if len([]rune(word)) <= 5 {
		limit = 1
	}
	var cs []cand
	for _, c := range candidates {
		d := editDistance(word, c)
		if d <= limit || (len(word) >= 2 && strings.HasPrefix(c, word)) {
			cs = append(cs, cand{c, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.s
	}
	return out
}

// didYouMean formats suggestions as " (did you mean X or Y?)", or "".
func didYouMean(prefix string, s []string) string {
	if len(s) == 0 {
		return ""
	}
	if len(s) > 3 {
		s = s[:3]
	}
	for i := range s {
		s[i] = prefix + s[i]
	}
	return " (did you mean " + strings.Join(s, " or ") + "?)"
}

// commandNames lists the commands, help included.
func commandNames() []string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return append(names, "help")
}

var (
	unknownFlagRE = regexp.MustCompile(`^unknown flag: --([^=\s]+)`)
	badValueRE    = regexp.MustCompile(`^invalid argument .* for "(?:-\w, )?--([^"]+)" flag`)
)

// flagHint adds a "did you mean" to pflag's unknown-flag error, and to its
// error for a value of the wrong type (--servers 2.5) the flag's help,
// which states the values allowed: pflag's own message says only that
// the value is not an integer.
func flagHint(fs *pflag.FlagSet, err error) string {
	if m := badValueRE.FindStringSubmatch(err.Error()); m != nil {
		if f := fs.Lookup(m[1]); f != nil {
			return " (--" + f.Name + ": " + f.Usage + ")"
		}
		return ""
	}
	m := unknownFlagRE.FindStringSubmatch(err.Error())
	if m == nil {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	return didYouMean("--", suggest(m[1], names))
}

// isList reports whether a flag takes a comma-separated list, as its help
// says.
func isList(f *pflag.Flag) bool {
	u := f.Usage
	return strings.Contains(u, "(list") || strings.Contains(u, " list of ") || strings.HasPrefix(u, "list")
}

// flagArg is the placeholder printed after a flag's name: nothing for a
// boolean, "list" for a comma list, "file" for a file name, else its type.
func flagArg(f *pflag.Flag) string {
	switch t := f.Value.Type(); {
	case t == "bool":
		return ""
	case isList(f):
		return "list"
	case t == "string" && strings.Contains(f.Usage, "FILE"):
		return "file"
	case t == "string" && (strings.Contains(f.Usage, "DIR") || strings.Contains(f.Usage, "directory")):
		return "dir"
	case t == "float64":
		return "float"
	case t == "uint64":
		return "uint"
	default:
		return t
	}
}

// printFlags writes a flag set's flags, one per line, aligned: name,
// placeholder, help, and the default unless it is the zero value or the
// help already states it.
func printFlags(w io.Writer, fs *pflag.FlagSet) {
	type line struct{ left, right string }
	var lines []line
	width := 0
	fs.VisitAll(func(f *pflag.Flag) {
		left := "  --" + f.Name
		if a := flagArg(f); a != "" {
			left += " " + a
		}
		right := f.Usage
		zero := f.DefValue == "" || (f.Value.Type() != "string" && (f.DefValue == "0" || f.DefValue == "false"))
		if !zero && !strings.Contains(f.Usage, "default") {
			right += " (default " + f.DefValue + ")"
		}
		lines = append(lines, line{left, right})
		width = max(width, len([]rune(left)))
	})
	for _, l := range lines {
		fmt.Fprintf(w, "%s%s   %s\n", l.left, strings.Repeat(" ", width-len([]rune(l.left))), l.right)
	}
}

// commandFlags returns each command's flags, found by asking the command
// for its help with the output discarded.
func commandFlags() map[string][]*pflag.Flag {
	out := map[string][]*pflag.Flag{}
	for _, c := range commands() {
		if c.name == "completion" || c.name == "version" {
			continue
		}
		e := &env{stdout: io.Discard, stderr: io.Discard}
		_ = c.run(context.Background(), e, []string{"--help"})
		if e.flags == nil {
			continue
		}
		e.flags.VisitAll(func(f *pflag.Flag) { out[c.name] = append(out[c.name], f) })
	}
	return out
}

// shells are the shells herd completion writes scripts for.
var shells = []string{"bash", "zsh", "fish"}

// runCompletion prints a completion script for bash, zsh or fish.
func runCompletion(_ context.Context, e *env, args []string) error {
	fs := newFlags(e, "completion", "completion bash|zsh|fish\n\n"+
		"Prints a shell completion script for commands, flags and --format values. Install:\n"+
		"  bash: source <(herd completion bash)          (or save it in ~/.local/share/bash-completion/completions/herd)\n"+
		"  zsh:  source <(herd completion zsh)           (uses bashcompinit)\n"+
		"  fish: herd completion fish > ~/.config/fish/completions/herd.fish")
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return usagef("%v", err)
	}
	args = fs.Args()
	if len(args) != 1 {
		return usagef("want one shell: bash, zsh or fish")
	}
	flags := commandFlags()
	switch args[0] {
	case "bash":
		_, err := io.WriteString(e.stdout, bashCompletion(flags))
		return err
	case "zsh":
		_, err := io.WriteString(e.stdout, "#compdef herd\nautoload -U +X bashcompinit && bashcompinit\n"+bashCompletion(flags))
		return err
	case "fish":
		_, err := io.WriteString(e.stdout, fishCompletion(flags))
		return err
	}
	return usagef("unknown shell %q: want bash, zsh or fish%s", args[0], didYouMean("", suggest(args[0], shells)))
}

// takesFile reports whether a flag's value is a file or directory name.
func takesFile(f *pflag.Flag) bool {
	return f.Value.Type() == "string" && strings.Contains(f.Usage, "FILE") || strings.Contains(f.Usage, "DIR") || strings.Contains(f.Usage, "directory")
}

func bashCompletion(flags map[string][]*pflag.Flag) string {
	var b strings.Builder
	b.WriteString("# bash completion for herd (herd completion bash)\n_herd() {\n")
	b.WriteString("  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=" + defaultCommand + " flags=\n")
	b.WriteString("  if (( COMP_CWORD == 1 )) && [[ $cur != -* ]]; then\n")
	b.WriteString("    COMPREPLY=($(compgen -W \"" + strings.Join(commandNames(), " ") + "\" -- \"$cur\")); return\n  fi\n")
	b.WriteString("  if (( COMP_CWORD > 1 )) && [[ ${COMP_WORDS[1]} != -* ]]; then cmd=${COMP_WORDS[1]}; fi\n")
	b.WriteString("  case $cmd in\n")
	b.WriteString("    help) COMPREPLY=($(compgen -W \"" + strings.Join(commandNames(), " ") + "\" -- \"$cur\")); return ;;\n")
	b.WriteString("    completion) COMPREPLY=($(compgen -W \"" + strings.Join(shells, " ") + "\" -- \"$cur\")); return ;;\n")
	for _, n := range slices.Sorted(maps.Keys(flags)) {
		var fl, files []string
		for _, f := range flags[n] {
			fl = append(fl, "--"+f.Name)
			if takesFile(f) {
				files = append(files, "--"+f.Name)
			}
		}
		fl = append(fl, "--help")
		b.WriteString("    " + n + ") flags=\"" + strings.Join(fl, " ") + "\" ;;\n")
	}
	b.WriteString("  esac\n")
	b.WriteString("  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \"$flags\" -- \"$cur\")); return; fi\n")
	b.WriteString("  case $prev in\n    --format) COMPREPLY=($(compgen -W \"text csv json\" -- \"$cur\")); return ;;\n  esac\n")
	b.WriteString("  COMPREPLY=($(compgen -f -- \"$cur\"))\n}\ncomplete -o filenames -F _herd herd\n")
	return b.String()
}

// fishQuote quotes s for fish: single quotes, with \ and ' escaped.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func fishCompletion(flags map[string][]*pflag.Flag) string {
	var b strings.Builder
	b.WriteString("# fish completion for herd (herd completion fish)\ncomplete -c herd -f\n")
	for _, c := range commands() {
		b.WriteString("complete -c herd -n __fish_use_subcommand -a " + c.name + " -d " + fishQuote(c.summary) + "\n")
	}
	b.WriteString("complete -c herd -n __fish_use_subcommand -a help -d 'list the commands, or show one command\\'s flags'\n")
	b.WriteString("complete -c herd -n '__fish_seen_subcommand_from help' -a " + fishQuote(strings.Join(commandNames(), " ")) + "\n")
	b.WriteString("complete -c herd -n '__fish_seen_subcommand_from completion' -a " + fishQuote(strings.Join(shells, " ")) + "\n")
	for _, n := range slices.Sorted(maps.Keys(flags)) {
		for _, f := range flags[n] {
			desc := f.Usage
			if i := strings.IndexAny(desc, ";("); i > 0 {
				desc = strings.TrimSpace(desc[:i])
			}
			line := "complete -c herd -n '__fish_seen_subcommand_from " + n + "' -l " + f.Name
			switch {
			case f.Value.Type() == "bool":
			case f.Name == "format":
				line += " -x -a 'text csv json'"
			case takesFile(f):
				line += " -r -F"
			default:
				line += " -x"
			}
			b.WriteString(line + " -d " + fishQuote(desc) + "\n")
		}
	}
	return b.String()
}
