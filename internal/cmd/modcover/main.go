// Command modcover checks that each module of the domain (package scoping,
// the table of docs/architecture.md, internal/modtable) is covered by
// scoping's own tests at least to a threshold. It reads a coverage
// profile, from the repository's root:
//
//	go test -coverprofile=scoping.cover ./scoping/
//	go run ./internal/cmd/modcover -min 85 scoping.cover
//
// and fails, naming the module, when one is under the threshold or when a
// file of the package belongs to no module.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/scopekit/scopekit/internal/modtable"
)

func main() {
	min := flag.Float64("min", 85, "the lowest coverage a module may have, in percent")
	table := flag.String("table", "docs/architecture.md", "the `file` holding the table of the modules")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: modcover [-min percent] [-table file] PROFILE")
		os.Exit(2)
	}
	mods, err := modtable.Read(*table)
	if err == nil {
		err = check(mods, flag.Arg(0), *min)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "modcover: "+err.Error())
		os.Exit(1)
	}
}

func check(mods []modtable.Module, profile string, min float64) error {
	moduleOf := map[string]string{}
	for _, m := range mods {
		for _, f := range m.Files {
			moduleOf[f] = m.Name
		}
	}
	f, err := os.Open(profile)
	if err != nil {
		return err
	}
	defer f.Close()
	total, covered := map[string]int{}, map[string]int{}
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "mode:") || line == "" {
			continue
		}
		// file:start,end statements count
		colon := strings.LastIndex(line, ":")
		fields := strings.Fields(line[colon+1:])
		if colon < 0 || len(fields) != 3 {
			return fmt.Errorf("malformed profile line %q", line)
		}
		file := path.Base(line[:colon])
		if !strings.Contains(line[:colon], "/scoping/") || strings.Contains(line[:colon], "/scoping/views/") {
			continue
		}
		m, ok := moduleOf[file]
		if !ok {
			if !seen[file] {
				seen[file] = true
				return fmt.Errorf("scoping/%s belongs to no module: add it to the table of docs/architecture.md", file)
			}
			continue
		}
		n, _ := strconv.Atoi(fields[1])
		c, _ := strconv.Atoi(fields[2])
		total[m] += n
		if c > 0 {
			covered[m] += n
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	names := make([]string, 0, len(mods))
	for _, m := range mods {
		names = append(names, m.Name)
	}
	sort.Strings(names)
	var low []string
	for _, m := range names {
		if total[m] == 0 {
			continue
		}
		pct := 100 * float64(covered[m]) / float64(total[m])
		fmt.Printf("%-28s %5.1f%% of %d statements\n", m, pct, total[m])
		if pct < min {
			low = append(low, fmt.Sprintf("%s (%.1f%%)", m, pct))
		}
	}
	if len(low) > 0 {
		return fmt.Errorf("under %.0f%%: %s", min, strings.Join(low, ", "))
	}
	return nil
}
