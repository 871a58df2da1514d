package storemove

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/pgstore"
)

// sourceCounts counts what the file holds, as pgstore counts a database.
func sourceCounts(e *boltstore.Export) *pgstore.Counts {
	c := &pgstore.Counts{Records: map[string]int64{}, Blobs: map[string]int64{}}
	for _, s := range e.RecordSets() {
		c.Records[s.Type] += int64(s.Count)
	}
	for _, s := range e.BlobSets() {
		c.Blobs[s.Kind] += int64(s.Count)
	}
	apps, creds, passwords, tokens, codes, mfa := e.AuthCounts()
	c.Applications, c.ServiceCredentials, c.Passwords = int64(apps), int64(creds), int64(passwords)
	c.Tokens, c.AuthCodes, c.SecondFactors = int64(tokens), int64(codes), int64(mfa)
	return c
}

// countLine is one kind of row and its count in the file and the
// database.
type countLine struct {
	kind       string
	file, base int64
}

// lines pairs the counts of file and database, kind by kind (a kind
// missing from one counts 0 there), records by type, then blobs by kind,
// then the auth tables.
func lines(file, base *pgstore.Counts) []countLine {
	var out []countLine
	for _, part := range []struct {
		what       string
		file, base map[string]int64
	}{{"records", file.Records, base.Records}, {"blobs", file.Blobs, base.Blobs}} {
		names := slices.Sorted(maps.Keys(part.file))
		for n := range part.base {
			if _, ok := part.file[n]; !ok {
				names = append(names, n)
			}
		}
		for _, n := range names {
			out = append(out, countLine{kind: part.what + " " + n, file: part.file[n], base: part.base[n]})
		}
	}
	return append(out,
		countLine{"auth applications", file.Applications, base.Applications},
		countLine{"auth service credentials", file.ServiceCredentials, base.ServiceCredentials},
		countLine{"auth passwords", file.Passwords, base.Passwords},
		countLine{"auth tokens", file.Tokens, base.Tokens},
		countLine{"auth codes", file.AuthCodes, base.AuthCodes},
		countLine{"auth second factors", file.SecondFactors, base.SecondFactors})
}

// compare describes every kind whose counts differ ("" when none).
func compare(file, base *pgstore.Counts) string {
	var diff []string
	for _, l := range lines(file, base) {
		if l.file != l.base {
			diff = append(diff, fmt.Sprintf("%s: file %d, database %d", l.kind, l.file, l.base))
		}
	}
	return strings.Join(diff, "; ")
}

// total is the number of rows c counts.
func total(c *pgstore.Counts) int64 {
	n := c.Applications + c.ServiceCredentials + c.Passwords + c.Tokens + c.AuthCodes + c.SecondFactors
	for _, m := range []map[string]int64{c.Records, c.Blobs} {
		for _, v := range m {
			n += v
		}
	}
	return n
}

// Summary lists the counts of a report, one line per kind that holds rows
// ("records projects: 12").
func (r *Report) Summary() []string {
	if r.Counts == nil {
		return nil
	}
	var out []string
	for _, l := range lines(r.Counts, r.Counts) {
		if l.base > 0 {
			out = append(out, fmt.Sprintf("%s: %d", l.kind, l.base))
		}
	}
	return out
}
