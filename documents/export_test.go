package documents

import "context"

// ScopedPath is a path a tag reads with the paths of the loops and
// sections around it (outermost first), as written.
type ScopedPath struct {
	Path   string
	Scopes []string
}

// TagScopes returns the paths of every tag of a template's body with their
// enclosing sections, for tests that check paths against merge data.
func TagScopes(tpl []byte) ([]ScopedPath, error) {
	f, err := formatOf(Detect(tpl))
	if err != nil {
		return nil, err
	}
	d, err := openPackage(context.Background(), f, tpl, false)
	if err != nil {
		return nil, err
	}
	defer d.close()
	var out []ScopedPath
	for _, name := range d.partNames() {
		t, err := d.compile(context.Background(), name)
		if err != nil {
			return nil, err
		}
		var visit func(n *node, scopes []string)
		visit = func(n *node, scopes []string) {
			if n.kind == kValue || n.kind == kSection {
				for _, p := range n.tag.expr.Paths(nil) {
					out = append(out, ScopedPath{Path: p, Scopes: append([]string(nil), scopes...)})
				}
			}
			if n.kind == kSection && n.tag.op == '#' && n.tag.expr.Op == "path" && n.tag.expr.Path != nil {
				scopes = append(scopes[:len(scopes):len(scopes)], n.tag.body)
			}
			for _, k := range n.kids {
				visit(k, scopes)
			}
		}
		visit(t.root, nil)
	}
	return out, nil
}

// SetRenderLimits lowers the bounds of a rendering for a test.
func SetRenderLimits(t interface{ Cleanup(func()) }, output, steps int) {
	o, s := outputLimit, maxSteps
	outputLimit, maxSteps = output, steps
	t.Cleanup(func() { outputLimit, maxSteps = o, s })
}

// SetMaxNodes lowers the bound of a part's tree for a test.
func SetMaxNodes(t interface{ Cleanup(func()) }, n int) {
	old := maxNodes
	maxNodes = n
	t.Cleanup(func() { maxNodes = old })
}

// HoldUnpackBudget takes the whole unpack budget until release is called.
func HoldUnpackBudget() (release func()) {
	if err := unpackBudget.Acquire(context.Background(), unpackBudgetBytes); err != nil {
		panic(err)
	}
	return func() { unpackBudget.Release(unpackBudgetBytes) }
}

// CalendarKeys are the locales whose CLDR calendars the date filter has.
func CalendarKeys() []string {
	keys := make([]string, 0, len(calendars))
	for k := range calendars {
		keys = append(keys, k)
	}
	return keys
}
