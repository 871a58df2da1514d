package webhook

import (
	"encoding/json"

	"github.com/scopekit/scopekit/scoping/views"
)

// MediaType is the Content-Type of every delivery.
const MediaType = "application/vnd.api+json"

type identifier struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

type linkage struct {
	Data *identifier `json:"data"`
}

type payload struct {
	Data struct {
		Type       string `json:"type"`
		ID         string `json:"id"`
		Attributes struct {
			EventType  string `json:"event-type"`
			OccurredAt string `json:"occurred-at"`
			OldStatus  string `json:"old-status"`
			NewStatus  string `json:"new-status"`
		} `json:"attributes"`
		Relationships struct {
			Subject linkage `json:"subject"`
			Project linkage `json:"project"`
		} `json:"relationships"`
	} `json:"data"`
}

// Body returns the JSON:API document delivered for e: a webhook-events
// resource whose id is the event id, with the subject and the project as
// relationships. The same event always gives the same bytes.
func Body(e *Event) []byte {
	var p payload
	p.Data.Type, p.Data.ID = "webhook-events", e.ID
	a := &p.Data.Attributes
	a.EventType, a.OccurredAt = e.Type, e.OccurredAt.UTC().Format("2006-01-02T15:04:05.000000Z")
	a.OldStatus, a.NewStatus = e.OldStatus, e.NewStatus
	p.Data.Relationships.Subject.Data = &identifier{Type: e.SubjectType, ID: e.SubjectID}
	if e.ProjectID != "" {
		p.Data.Relationships.Project.Data = &identifier{Type: views.TypeProjects, ID: e.ProjectID}
	}
	b, _ := json.Marshal(&p) // only strings: cannot fail
	return b
}
