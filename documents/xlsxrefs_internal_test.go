package documents

import "testing"

// Ensure formulas are read as a spreadsheet reads them: only references
// move (not functions such as LOG10, names, numbers, strings, external or
// table references), with their sheet, whole rows and $.
func TestRewriteRefs(t *testing.T) {
	m := &rowMap{tpl: []int{1, 2, 3}, copies: map[int][]int{1: {1}, 2: {2, 3, 4}, 3: {5}}}
	move := func(f string) string {
		return rewriteRefs(f, func(sheet string, r ref) string {
			if sheet != "" && sheet != "Data" && sheet != "My 'quoted' sheet" {
				return r.String()
			}
			return m.moveRef(r, sheet == "", cellPlace{3, 0})
		})
	}
	for in, want := range map[string]string{
		"SUM(B2:B2)":                       "SUM(B2:B4)",
		"B3+LOG10(B3)":                     "B5+LOG10(B5)",
		`"B3 "&B3&"B3"`:                    `"B3 "&B5&"B3"`,
		`"say ""B3"""&B3`:                  `"say ""B3"""&B5`,
		"Data!$B$3*Other!B3":               "Data!$B$5*Other!B3",
		"'My ''quoted'' sheet'!B3":         "'My ''quoted'' sheet'!B5",
		"[1]Data!B3+Table1[Amount]+B3":     "[1]Data!B3+Table1[Amount]+B5",
		"SUM(3:3)+SUM(B:B)+SUM($2:$2)":     "SUM(5:5)+SUM(B:B)+SUM($2:$4)",
		"Total+B3*1.5E+3+A1B2+_xlfn.X(B3)": "Total+B5*1.5E+3+A1B2+_xlfn.X(B5)",
		"IF(TRUE,B1,#REF!)":                "IF(TRUE,B1,#REF!)",
		"B7":                               "B9",
		"XFD3+AAA3":                        "XFD5+AAA5",
	} {
		if got := move(in); got != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
	// shared formulas: relative parts move, absolute ones stay, off the sheet is #REF!
	for _, tc := range []struct {
		in     string
		dr, dc int
		want   string
	}{
		{"B3+$B$3+B$3+$B3", 2, 1, "C5+$B$3+C$3+$B5"}, {"A1", -1, 0, "#REF!"}, {"SUM(A1:B2)", 1, 1, "SUM(B2:C3)"},
	} {
		if got := shiftRefs(tc.in, tc.dr, tc.dc); got != tc.want {
			t.Errorf("shift %s by %d,%d: got %s, want %s", tc.in, tc.dr, tc.dc, got, tc.want)
		}
	}
}
