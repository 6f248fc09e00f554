// Command herd computes when stale load boards make dispatchers herd: the
// infinite-server refresh map, its fixed points and stability edge, the
// classic mean-field models, and a finite discrete-event simulator that
// witnesses them.
//
// Usage:
//
//	herd [command] [flags]
//
// Plain herd runs the default job. herd help lists the commands; herd help
// CMD (or herd CMD -h) shows a command's flags.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/spf13/pflag"
)

// version is printed by herd version and recorded in every table.
const version = "0.1.0-dev"

// command is one subcommand: its flag set is built fresh for every call.
type command struct {
	name, summary string
	run           func(ctx context.Context, env *env, args []string) error
}

// env is what a command may touch: its output streams, and its name and
// parsed flags, recorded in CSV and JSON output (see commandLine).
type env struct {
	stdin          io.Reader // read by --from - (nil: none)
	stdout, stderr io.Writer
	command        string
	flags          *pflag.FlagSet // set by newFlags
}

// commands is the command table, sorted by name.
func commands() []command {
	cs := []command{
		{"balls", "balls into bins: maximum load under uniform, Greedy[d], Left[d], FirstDiff[d], with stale loads", runBalls},
		{"completion", "print a shell completion script: herd completion bash|zsh|fish", runCompletion},
		{"bracket", "bracket the edge with the simulator at N servers (resumable with --out)", runBracket},
		{"figures", "write every published chart (SVG, PNG and the CSV behind it) into a directory", runFigures},
		{"model", "the classic mean-field models: random, round robin, supermarket SQ(d), periodic-update SQ(d) and least loaded", runModel},
		{"hysteresis", "the trap door: balanced and herd branches against T, model and simulator", runHysteresis},
		{"law", "fit the edge to a(k − b) per load, extrapolate it to λ → 1, and judge the law 0.9(k−2)", runLaw},
		{"merge", "combine the part files of a sharded sweep into the unsharded output", runMerge},
		{"scaling", "fit edge(N) = edge(∞) + a·N^(−β) to the brackets", runScaling},
		{"edge", "the tipping point of the balanced state for each (k, λ), from the refresh map (the default job)", runEdge},
		{"plan", "is my fleet in the herd? a fleet in real units (backends, proxies, scrape interval, ms, requests/s): verdict, margin, costs and fixes", runPlan},
		{"point", "iterate the refresh map from a start board to its attractor", runPoint},
		{"validate", "check closed forms, models and the simulator against the published figures", runValidate},
		{"sim", "simulate N servers with k dispatchers on a stale board (one row per flag combination)", runSim},
		{"version", "print herd's version", func(_ context.Context, e *env, args []string) error {
			if len(args) > 0 {
				return usagef("version takes no arguments")
			}
			_, err := fmt.Fprintln(e.stdout, "herd", version)
			return err
		}},
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].name < cs[j].name })
	return cs
}

// defaultCommand is what plain herd runs.
const defaultCommand = "edge"

// usageError is bad input: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// errInterrupted marks a run stopped by a signal after writing what it had.
var errInterrupted = errors.New("interrupted: finished rows written, marked partial")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is herd without the process: it returns the exit status (0 success,
// 1 a runtime or numerical failure, 2 bad usage).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	e := &env{stdin: os.Stdin, stdout: stdout, stderr: stderr}
	name := defaultCommand
	switch {
	case len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help"):
		name, args = "help", args[1:]
	case len(args) > 0 && (args[0] == "--version" || args[0] == "-version"):
		name, args = "version", args[1:]
	case len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-':
		name, args = args[0], args[1:]
	}
	var err error
	switch name {
	case "help":
		err = help(e, args)
	default:
		cmd, ok := lookup(name)
		if !ok {
			err = usagef("unknown command %q%s; run 'herd help' for the list", name, didYouMean("", suggest(name, commandNames())))
			break
		}
		e.command = name
		err = cmd.run(ctx, e, args)
	}
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, pflag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "herd %s: %v\n", name, err)
		return 2
	default:
		fmt.Fprintf(stderr, "herd %s: %v\n", name, err)
		return 1
	}
}

func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func help(e *env, args []string) error {
	if len(args) == 1 {
		if t, ok := helpTopics[args[0]]; ok {
			_, err := fmt.Fprint(e.stdout, t)
			return err
		}
		cmd, ok := lookup(args[0])
		if !ok {
			return usagef("unknown command %q%s", args[0], didYouMean("", suggest(args[0], append(commandNames(), helpTopicNames()...))))
		}
		if cmd.name == "version" { // takes no flags, not even --help
			_, err := fmt.Fprintf(e.stdout, "Usage: herd version   (or herd --version)\n\nPrints herd's version, %s, which every table records.\n", version)
			return err
		}
		return cmd.run(context.Background(), e, []string{"--help"})
	}
	if len(args) > 1 {
		return usagef("help takes at most one command name")
	}
	fmt.Fprintf(e.stdout, "herd %s: load balancing on stale boards, exactly and fast.\n\n", version)
	fmt.Fprintf(e.stdout, "Usage: herd [command] [flags]   (plain herd runs %q)\n\nCommands:\n", defaultCommand)
	for _, c := range commands() {
		fmt.Fprintf(e.stdout, "  %-11s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(e.stdout, "  help        herd help CMD shows a command's flags, what it computes and its columns")
	fmt.Fprintf(e.stdout, "\nTopics: herd help output (formats, plots, progress, Ctrl-C), herd help limits (size limits).\n")
	fmt.Fprintf(e.stdout, "\nFlags: -h, --help (this list; herd CMD -h for a command's flags), --version.\n")
	fmt.Fprintf(e.stdout, "Without a command, herd takes %s's flags. Exit status: 0 success, 1 failure or interrupted, 2 bad usage.\n", defaultCommand)
	return nil
}

// newFlags returns a command's flag set; parse errors and -h come back as
// errors, never as an exit.
func newFlags(e *env, name, synopsis string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SortFlags = false
	e.flags = fs
	fs.Usage = func() {
		fmt.Fprintf(e.stdout, "Usage: herd %s\n\nFlags (a list is comma-separated: one result per combination):\n", synopsis)
		printFlags(e.stdout, fs)
		if t := commandHelp[name]; t != "" {
			fmt.Fprintf(e.stdout, "\n%s", t)
		}
	}
	return fs
}

// parse parses args, turning pflag's errors into usage errors; -h prints
// the command's usage on stdout.
func parse(fs *pflag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if errors.Is(err, pflag.ErrHelp) { // pflag has printed the usage
		return err
	}
	if err != nil {
		return usagef("%v%s", err, flagHint(fs, err))
	}
	if err := checkEmpty(fs); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// checkEmpty refuses a flag given an explicitly empty value (--from "" or
// --plot=, as a script with an unset variable passes): taking it as "not
// given" would quietly run the default in its place. No flag of herd gives
// empty a meaning of its own. Numeric and boolean flags already fail to
// parse an empty value; this covers the string flags.
func checkEmpty(fs *pflag.FlagSet) error {
	var bad *pflag.Flag
	fs.Visit(func(f *pflag.Flag) {
		if bad == nil && f.Value.Type() == "string" && strings.TrimSpace(f.Value.String()) == "" {
			bad = f
		}
	})
	if bad != nil {
		return usagef("--%s is empty: leave the flag out for its default, or give it a value (--%s: %s)", bad.Name, bad.Name, bad.Usage)
	}
	return nil
}
