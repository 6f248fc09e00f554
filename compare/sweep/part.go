package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"herd/compare/atomicfile"
)

// Format names the part file format; a reader refuses others.
const Format = "herd-part/1"

// MaxRuns bounds the runs of one sweep and its number of shards.
const MaxRuns = 1_000_000

// Part is one shard's part file: a header saying which sweep and which
// shard it is, and the raw result of each run the shard finished.
type Part struct {
	Format  string   `json:"format"`  // Format
	Version string   `json:"version"` // the writing program's version
	Command string   `json:"command"` // the sweep's command (sim, point, bracket)
	Args    []string `json:"args"`    // the sweep's canonical argument list
	Shards  int      `json:"shards"`  // N
	Shard   int      `json:"shard"`   // I
	Total   int      `json:"total"`   // runs in the whole sweep
	Owned   []int    `json:"owned"`   // the run indices this shard holds
	// Complete is false in a part written by an interrupted shard: its
	// Results hold the runs that finished, and a rerun of the shard does
	// only the rest.
	Complete bool     `json:"complete"`
	Results  []Record `json:"results"`
}

// Record is one finished run in a part: its index in the sweep, its identity
// (checked on merge against the index's run) and its raw result.
type Record struct {
	Index  int             `json:"index"`
	ID     string          `json:"id"`
	Result json.RawMessage `json:"result"`
}

// PartName is the file shard i of n writes in the part directory:
// part-I-of-N.json, I zero-padded to the width of n−1.
func PartName(n, i int) string {
	return fmt.Sprintf("part-%0*d-of-%d.json", len(strconv.Itoa(n-1)), i, n)
}

// partNameRE matches the part files ReadParts reads.
var partNameRE = regexp.MustCompile(`^part-([0-9]+)-of-([0-9]+)\.json$`)

// Owned lists the run indices shard i of n holds among total runs:
// i, i+n, i+2n, … below total.
func Owned(total, n, i int) []int {
	var idx []int
	for j := i; j < total; j += n {
		idx = append(idx, j)
	}
	return idx
}

// SameSweep reports whether two parts belong to one sweep: one format,
// version, command, argument list, number of shards and of runs.
func (p *Part) SameSweep(q *Part) bool {
	return p.Format == q.Format && p.Version == q.Version && p.Command == q.Command &&
		p.Shards == q.Shards && p.Total == q.Total && slices.Equal(p.Args, q.Args)
}

// ReadPart reads and checks one part file: a file that does not parse, or
// whose header contradicts itself or its name, is an error.
func ReadPart(path string) (*Part, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p Part
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("corrupt part file: %w", err)
	}
	if dec.More() {
		return nil, errors.New("corrupt part file: data after the JSON document")
	}
	if err := p.Check(filepath.Base(path)); err != nil {
		return nil, err
	}
	return &p, nil
}

// Check checks a part's header against itself and its file name, and its
// results against the runs it owns.
func (p *Part) Check(name string) error {
	switch {
	case p.Format != Format:
		return fmt.Errorf("corrupt part file: format %q, want %q", p.Format, Format)
	case p.Shards < 1 || p.Shards > MaxRuns || p.Shard < 0 || p.Shard >= p.Shards || p.Total < 0 || p.Total > MaxRuns:
		return fmt.Errorf("corrupt part file: shard %d of %d, %d runs", p.Shard, p.Shards, p.Total)
	case name != PartName(p.Shards, p.Shard):
		return fmt.Errorf("corrupt part file: it holds shard %d of %d, which belongs in %s", p.Shard, p.Shards, PartName(p.Shards, p.Shard))
	}
	want := Owned(p.Total, p.Shards, p.Shard)
	if len(p.Owned) != len(want) {
		return fmt.Errorf("corrupt part file: owns %d runs, want %d", len(p.Owned), len(want))
	}
	for k := range want {
		if p.Owned[k] != want[k] {
			return fmt.Errorf("corrupt part file: owns run %d, want %d", p.Owned[k], want[k])
		}
	}
	seen := map[int]bool{}
	for _, r := range p.Results {
		if r.Index < 0 || r.Index >= p.Total || r.Index%p.Shards != p.Shard || seen[r.Index] || len(r.Result) == 0 {
			return fmt.Errorf("corrupt part file: result for run %d (duplicate, missing or not this shard's)", r.Index)
		}
		seen[r.Index] = true
	}
	if p.Complete && len(p.Results) != len(want) {
		return fmt.Errorf("corrupt part file: marked complete with %d of %d runs", len(p.Results), len(want))
	}
	return nil
}

// Write writes the part file atomically: indented JSON and a newline.
func (p *Part) Write(path string) error {
	if p.Results == nil {
		p.Results = []Record{}
	}
	data, err := json.MarshalIndent(p, "", " ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(data, '\n'))
}

// ReadParts reads every part file in dir (part-I-of-N.json) and checks
// that they are one whole sweep written by version of a command canMerge
// accepts: one command, argument list, version and N, every shard present
// once and complete. Corrupt files, parts of another sweep and duplicate
// shards are errors; missing and partial shards are listed with the
// sbatch --array list that reruns them. The parts come back in shard
// order.
func ReadParts(dir, version string, canMerge func(command string) bool) ([]*Part, error) {
	names, err := partNames(dir)
	if err != nil {
		return nil, err
	}
	var parts []*Part
	var bad []string
	var badShards []int
	for _, name := range names {
		p, err := ReadPart(filepath.Join(dir, name))
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", name, err))
			if m := partNameRE.FindStringSubmatch(name); m != nil {
				if i, err := strconv.Atoi(m[1]); err == nil {
					badShards = append(badShards, i)
				}
			}
			continue
		}
		parts = append(parts, p)
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("%s: %d unreadable part file(s):\n  %s\ndelete them and rerun those shards: sbatch --array=%s SCRIPT",
			dir, len(bad), strings.Join(bad, "\n  "), ShardList(badShards))
	}
	first := parts[0]
	if first.Version != version {
		return nil, fmt.Errorf("%s: the parts were written by herd %s, this is herd %s", dir, first.Version, version)
	}
	if !canMerge(first.Command) {
		return nil, fmt.Errorf("%s: %s: herd merge cannot combine %q sweeps", dir, names[0], first.Command)
	}
	byShard := map[int]*Part{}
	for k, p := range parts {
		if !p.SameSweep(first) {
			return nil, fmt.Errorf("%s: %s and %s belong to different sweeps (herd %s %s, %d shards; herd %s %s, %d shards): use one directory per sweep",
				dir, names[0], names[k], first.Command, strings.Join(first.Args, " "), first.Shards, p.Command, strings.Join(p.Args, " "), p.Shards)
		}
		if _, dup := byShard[p.Shard]; dup {
			return nil, fmt.Errorf("%s: shard %d appears twice", dir, p.Shard)
		}
		byShard[p.Shard] = p
	}
	if err := whole(dir, first, byShard); err != nil {
		return nil, err
	}
	return parts, nil
}

// partNames lists the part files in dir, sorted; none is an error.
func partNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, de := range entries {
		if partNameRE.MatchString(de.Name()) {
			names = append(names, de.Name())
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no part files (part-I-of-N.json): is it the --out of a sweep run with --shards?", dir)
	}
	return names, nil
}

// whole lists the shards of first's sweep that byShard lacks or holds
// partial, with the commands that rerun them; nil when there are none.
func whole(dir string, first *Part, byShard map[int]*Part) error {
	var why []string
	var list []int
	for i := range first.Shards {
		p, ok := byShard[i]
		switch {
		case !ok:
			list = append(list, i)
			why = append(why, fmt.Sprintf("%d missing", i))
		case !p.Complete:
			list = append(list, i)
			why = append(why, fmt.Sprintf("%d partial (%d of %d runs)", i, len(p.Results), len(p.Owned)))
		}
	}
	if len(list) == 0 {
		return nil
	}
	return errors.New(strings.Join([]string{
		fmt.Sprintf("%s: %d of %d shards missing or incomplete: %s", dir, len(list), first.Shards, strings.Join(why, ", ")),
		fmt.Sprintf("rerun them: sbatch --array=%s SCRIPT   (or: herd %s ... --shards %d --shard I --out %s, for I in %s)",
			ShardList(list), first.Command, first.Shards, dir, ShardList(list)),
	}, "\n"))
}

// Merged are the runs of a whole sweep read back from its parts, by index.
type Merged struct {
	Total int
	IDs   []string
	Raw   []json.RawMessage
}

// Merge collects the runs of parts, one whole sweep as ReadParts returns
// it, by index.
func Merge(parts []*Part) *Merged {
	first := parts[0]
	m := &Merged{Total: first.Total, IDs: make([]string, first.Total), Raw: make([]json.RawMessage, first.Total)}
	for _, p := range parts {
		for _, r := range p.Results {
			m.IDs[r.Index], m.Raw[r.Index] = r.ID, r.Result
		}
	}
	return m
}

// ShardList writes shard indices compactly, as sbatch --array takes them:
// 0-3,7,9-10. It sorts xs.
func ShardList(xs []int) string {
	sort.Ints(xs)
	var parts []string
	for k := 0; k < len(xs); {
		j := k
		for j+1 < len(xs) && xs[j+1] == xs[j]+1 {
			j++
		}
		if j == k {
			parts = append(parts, strconv.Itoa(xs[k]))
		} else {
			parts = append(parts, strconv.Itoa(xs[k])+"-"+strconv.Itoa(xs[j]))
		}
		k = j + 1
	}
	return strings.Join(parts, ",")
}
