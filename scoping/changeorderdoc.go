package scoping

import (
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// Change order documents (docs/lifecycle.md): filled from a template as a
// SOW is, from the change order's scope (the project with the change
// order's lines and adjustments) and the change order itself with its
// deltas from its base version (merge data's change_order). The document
// records the base version.

// changeOrderSnapshot reads the snapshot a change order's document is
// filled from, in the call's transaction.
func changeOrderSnapshot(c *engine.Call, coID string) (*views.Snapshot, error) {
	co, err := c.Get(views.TypeChangeOrders, coID)
	if err != nil {
		return nil, err
	}
	proj, err := c.Get(views.TypeProjects, co.Rel(views.NameProject))
	if err != nil {
		return nil, err
	}
	pp, err := coRun(c, co)
	if err != nil {
		return nil, err
	}
	scope := proj.Clone() // the project as the change order would make it
	for _, a := range changeOrderInputs {
		scope.Attrs[a] = co.Attrs[a]
	}
	for _, a := range figureAttrs[views.TypeChangeOrders] {
		scope.Attrs[a] = co.Attrs[a]
	}
	snap, err := snapshotOf(c, scope, pp)
	if err != nil {
		return nil, err
	}
	if snap.ChangeOrderDiff, err = changeOrderDiff(c, co); err != nil {
		return nil, err
	}
	snap.ChangeOrder = &views.ChangeOrder{Record: co}
	base, err := c.Get(views.TypeProjectVersions, co.Rel(views.NameBaseVersion))
	if err != nil {
		return nil, err
	}
	snap.Version = &views.ProjectVersion{Record: base}
	return snap, fillSnapshot(c, snap)
}
