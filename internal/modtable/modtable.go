// Package modtable reads the table of the domain's modules in
// docs/architecture.md ("The domain's modules"): for each module of
// package scoping, its declare* functions, its files and the types it
// declares. The table is the one place that says which module a file
// belongs to; scoping's TestModuleTable holds it to the code and
// internal/cmd/modcover measures coverage by it.
package modtable

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
)

// Heading is the section of docs/architecture.md the table is in.
const Heading = "## The domain's modules"

// A Module is one row of the table.
type Module struct {
	Name     string
	Declares []string // the declare* functions
	Files    []string // the files of package scoping
	Types    []string // the resource types it declares
}

// columns are the table's header cells, in order.
var columns = []string{"module", "declares", "files", "types"}

var code = regexp.MustCompile("`([^`]+)`")

// Read returns the modules of the table in the Markdown file at path.
func Read(path string) ([]Module, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var mods []Module
	in, header := false, false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "## "):
			if in && header {
				return mods, nil
			}
			in = line == Heading
		case !in || !strings.HasPrefix(line, "|"):
			if in && header && line != "" {
				return mods, nil // the table has ended
			}
		case !header:
			if got := cells(line); !slices.Equal(got, columns) {
				return nil, fmt.Errorf("%s:%d: the table's header is %v, not %v", path, n, got, columns)
			}
			header = true
		case strings.HasPrefix(line, "|---"):
		default:
			c := cells(line)
			if len(c) != len(columns) {
				return nil, fmt.Errorf("%s:%d: %d cells, not %d", path, n, len(c), len(columns))
			}
			mods = append(mods, Module{Name: c[0], Declares: codes(c[1]), Files: codes(c[2]), Types: codes(c[3])})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !header {
		return nil, errors.New(path + ": no module table under " + Heading)
	}
	return mods, nil
}

func cells(line string) []string {
	parts := strings.Split(strings.Trim(line, "|"), "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

func codes(cell string) []string {
	var out []string
	for _, m := range code.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}
