package scoping

import (
	"context"

	"github.com/scopekit/scopekit/scoping/views"
)

// The event outbox: every status change writes an event record in the same
// transaction as the change, so a change that rolls back leaves no event
// and one that commits always has one. Event ids come from one sequence,
// so they order the outbox; the webhook dispatcher reads it with Events.
func declareEvents(s *Schema) {
	register(s, &TypeDef{Name: "events", Internal: true, IndexCreated: true,
		Attrs: []AttrDef{{Name: "event-type", Kind: KindString, Index: true}, str("subject-type"), str("subject-id"),
			str("old-status"), str("new-status"), {Name: "occurred-at", Kind: KindTime}},
		Rels: []RelDef{to1("project", "projects")}})
}

// recordEvent appends an event about subject to the outbox of the call's
// account, in the call's transaction.
func recordEvent(c *Call, eventType string, subject *Record, projectID, oldStatus, newStatus string) error {
	e := NewRecord(views.TypeEvents, subject.AccountID)
	e.Attrs[views.NameEventType], e.Attrs[views.NameSubjectType], e.Attrs[views.NameSubjectID] = eventType, subject.Type, subject.ID
	e.Attrs[views.NameOldStatus], e.Attrs[views.NameNewStatus] = oldStatus, newStatus
	e.Attrs[views.NameOccurredAt] = FormatTime(svcOf(c).Now())
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
func (s *Service) Events(ctx context.Context, afterID string, limit int) ([]*Record, error) {
	var out []*Record
	err := s.Store().View(ctx, func(tx Tx) error {
		recs, _, err := tx.List(&Query{Type: views.TypeEvents, AllAccounts: true})
		if err != nil {
			return err
		}
		for _, r := range recs {
			if afterID != "" && CompareIDs(r.ID, afterID) <= 0 {
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
