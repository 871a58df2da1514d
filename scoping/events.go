package scoping

import (
	"context"

	"github.com/scopekit/scopekit/engine"

	"github.com/scopekit/scopekit/scoping/views"
)

// The event outbox: every status change writes an event record in the same
// transaction as the change, so a change that rolls back leaves no event
// and one that commits always has one. Event ids come from one sequence,
// so they order the outbox; the webhook dispatcher reads it with Events.
func declareEvents(s *engine.Schema) {
	register(s, &engine.TypeDef{Name: "events", Internal: true, IndexCreated: true,
		Attrs: []engine.AttrDef{{Name: "event-type", Kind: engine.KindString, Index: true}, str("subject-type"), str("subject-id"),
			str("old-status"), str("new-status"), {Name: "occurred-at", Kind: engine.KindTime}},
		Rels: []engine.RelDef{to1("project", "projects")}})
}

// recordEvent appends an event about subject to the outbox of the call's
// account, in the call's transaction.
func recordEvent(c *engine.Call, eventType string, subject *engine.Record, projectID, oldStatus, newStatus string) error {
	e := engine.NewRecord(views.TypeEvents, subject.AccountID)
	e.Attrs[views.NameEventType], e.Attrs[views.NameSubjectType], e.Attrs[views.NameSubjectID] = eventType, subject.Type, subject.ID
	e.Attrs[views.NameOldStatus], e.Attrs[views.NameNewStatus] = oldStatus, newStatus
	e.Attrs[views.NameOccurredAt] = engine.FormatTime(svcOf(c).Now())
	e.SetRel(views.NameProject, projectID)
	if err := c.Tx.Insert(e); err != nil {
		return err
	}
	state(c).events++
	return queueDeliveries(c, e)
}

// Events returns up to limit events of every account recorded after the
// event with id afterID ("" for the start), oldest first. Ids compare as
// numbers.
func (s *Service) Events(ctx context.Context, afterID string, limit int) ([]*engine.Record, error) {
	var out []*engine.Record
	err := s.eng.Store().View(ctx, func(tx engine.Tx) error {
		recs, _, err := tx.List(&engine.Query{Type: views.TypeEvents, AllAccounts: true})
		if err != nil {
			return err
		}
		for _, r := range recs {
			if afterID != "" && engine.CompareIDs(r.ID, afterID) <= 0 {
				continue
			}
			out = append(out, r)
			if limit > 0 && len(out) == limit {
				break
			}
		}
		return nil
	})
	return out, err
}
