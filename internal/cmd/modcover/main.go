// Command modcover checks that each module of the domain (package scoping,
// docs/architecture.md) is covered by scoping's own tests at least to a
// threshold. It reads a coverage profile:
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
)

// modules maps each module of scoping to its files (docs/architecture.md,
// "The domain's modules"); the shared wiring is a module of its own.
var modules = map[string][]string{
	"accounts and people":        {"account.go", "admin.go", "permission.go", "actorcache.go", "directory.go", "invitation.go", "sso.go", "domains.go", "grants.go", "person.go", "email.go", "signinpolicy.go"},
	"catalog":                    {"catalog.go", "currency.go", "governance.go", "udf.go"},
	"projects and their pricing": {"project.go", "catalogcopy.go", "pricing.go", "storedprices.go", "snapshot.go", "review.go"},
	"approval workflow":          {"workflow.go", "steps.go", "serviceapproval.go"},
	"documents queue":            {"documents.go", "docqueue.go", "doctemplates.go"},
	"webhooks":                   {"webhooks.go", "events.go"},
	"lifecycle":                  {"versions.go", "versionsnap.go", "versiondiff.go", "scopeapply.go", "changeorders.go", "changeflow.go", "changeorderdoc.go"},
	"wiring":                     {"service.go", "schema.go", "decl.go", "trace.go"},
}

func main() {
	min := flag.Float64("min", 85, "the lowest coverage a module may have, in percent")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: modcover [-min percent] PROFILE")
		os.Exit(2)
	}
	if err := check(flag.Arg(0), *min); err != nil {
		fmt.Fprintln(os.Stderr, "modcover: "+err.Error())
		os.Exit(1)
	}
}

func check(profile string, min float64) error {
	moduleOf := map[string]string{}
	for m, files := range modules {
		for _, f := range files {
			moduleOf[f] = m
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
				return fmt.Errorf("scoping/%s belongs to no module: add it to modcover's modules and docs/architecture.md", file)
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
	names := make([]string, 0, len(modules))
	for m := range modules {
		names = append(names, m)
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
