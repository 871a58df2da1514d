package scoping_test

import (
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/stretchr/testify/require"
)

// Ensure CreateEach stores every record its function creates, or none
// when one create fails; that each create holds its type's guard; and
// that a type whose Prepare hook works outside transactions is refused.
func TestCreateEachAllOrNothing(t *testing.T) {
	w := newWfWorld(t)
	before := len(w.list("phases", nil))
	var created []string
	err := w.svc.CreateEach(w.ctx, w.admin, func(create func(string, *engine.Input) (*engine.Record, error)) error {
		for _, name := range []string{`"One"`, `"Two"`} {
			rec, err := create("phases", &engine.Input{Attrs: attrs("name", name)})
			if err != nil {
				return err
			}
			created = append(created, rec.ID)
		}
		return nil
	})
	require.NoError(t, err)
	require.Len(t, w.list("phases", nil), before+2)

	err = w.svc.CreateEach(w.ctx, w.admin, func(create func(string, *engine.Input) (*engine.Record, error)) error {
		if _, err := create("phases", &engine.Input{Attrs: attrs("name", `"Three"`)}); err != nil {
			return err
		}
		_, err := create("phases", &engine.Input{Attrs: attrs("position", `1`)}) // no name
		return err
	})
	wfCode(t, scopekit.EINVALID, err)
	require.Len(t, w.list("phases", nil), before+2, "the first create of a failed call is not stored")

	_, readOnly := w.member("ro@acme.test", "Read Only")
	for _, tc := range []struct {
		actor *engine.Actor
		typ   string
		code  string
	}{
		{readOnly, "phases", scopekit.EFORBIDDEN},
		{w.admin, "identity-providers", scopekit.EBADREQUEST},
		{w.admin, "no-such-type", scopekit.ENOTFOUND},
	} {
		err := w.svc.CreateEach(w.ctx, tc.actor, func(create func(string, *engine.Input) (*engine.Record, error)) error {
			_, err := create(tc.typ, &engine.Input{Attrs: attrs("name", `"X"`)})
			return err
		})
		wfCode(t, tc.code, err)
	}
}
