package catalogimport

import (
	"regexp"
	"strings"
)

// CSV cells a spreadsheet would run. A spreadsheet opening a CSV file
// reads a cell that starts with =, +, -, @, a tab or a carriage return as
// a formula (OWASP, "CSV Injection"), so the export writes such a cell
// with a single quote in front, which the spreadsheet shows as text; the
// import drops that quote again, and only it, so that an export imports
// as the same catalog.
//
// A cell that starts with quotes before such a character gets one more
// quote, so the undoing is exact: the export maps '…'x to ''…'x and the
// import maps it back, leaving every other cell as it is (a hand-written
// 'Plan keeps its quote). A plain decimal (-250) is a number to a
// spreadsheet, not a formula, and stays as it is.

// formulaStarts are the first characters of a cell a spreadsheet runs.
const formulaStarts = "=+-@\t\r"

// plainNumber is a plain decimal, as the export writes numbers.
var plainNumber = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// runnable reports whether s, after its leading single quotes, starts with
// a character a spreadsheet runs, and is not a plain decimal.
func runnable(s string) bool {
	t := strings.TrimLeft(s, "'")
	return t != "" && strings.IndexByte(formulaStarts, t[0]) >= 0 && !plainNumber.MatchString(s)
}

// neutralise returns a cell's text as the export writes it to a CSV file.
func neutralise(s string) string {
	if runnable(s) {
		return "'" + s
	}
	return s
}

// unneutralise returns a CSV cell's text as the export had it before
// neutralise.
func unneutralise(s string) string {
	if strings.HasPrefix(s, "'") && runnable(s) {
		return s[1:]
	}
	return s
}
