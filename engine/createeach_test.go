package engine_test

import (
	"context"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/stretchr/testify/require"
)

// Ensure CreateEach stores every record its function creates in one
// transaction, or none of them: a refused create (validation, an unknown
// type, a guard) or the function's own error leaves nothing behind, and
// a type with a Prepare hook is refused.
func TestCreateEach(t *testing.T) {
	ctx := context.Background()
	v := newEnv(t, engine.Hooks{}, engine.Config{})
	count := func(typ string) int {
		t.Helper()
		res, err := v.list(v.admin, typ, engine.ListParams{})
		require.NoError(t, err)
		return len(res.Records)
	}

	err := v.e.CreateEach(ctx, v.admin, engine.Options{}, func(create func(string, *engine.Input) (*engine.Record, error)) error {
		box, err := create("boxes", input(map[string]any{"name": "one"}, nil))
		if err != nil {
			return err
		}
		_, err = create("items", input(map[string]any{"title": "a"}, map[string]engine.RelInput{"box": to1("boxes", box.ID)}))
		return err
	})
	require.NoError(t, err)
	require.Equal(t, 1, count("boxes"))
	require.Equal(t, 1, count("items"), "a record created in the transaction is seen by the next create")

	for name, fn := range map[string]func(create func(string, *engine.Input) (*engine.Record, error)) error{
		"a refused create": func(create func(string, *engine.Input) (*engine.Record, error)) error {
			if _, err := create("boxes", input(map[string]any{"name": "two"}, nil)); err != nil {
				return err
			}
			_, err := create("items", input(map[string]any{}, nil)) // no title, no box
			return err
		},
		"an unknown type": func(create func(string, *engine.Input) (*engine.Record, error)) error {
			if _, err := create("boxes", input(map[string]any{"name": "three"}, nil)); err != nil {
				return err
			}
			_, err := create("crates", input(map[string]any{"name": "x"}, nil))
			return err
		},
		"the function's own error": func(create func(string, *engine.Input) (*engine.Record, error)) error {
			if _, err := create("boxes", input(map[string]any{"name": "four"}, nil)); err != nil {
				return err
			}
			return scopekit.Errorf(scopekit.ECONFLICT, "changed my mind")
		},
	} {
		t.Run(name, func(t *testing.T) {
			require.Error(t, v.e.CreateEach(ctx, v.admin, engine.Options{}, fn))
			require.Equal(t, 1, count("boxes"), "nothing of a failed CreateEach is stored")
			require.Equal(t, 1, count("items"))
		})
	}

	t.Run("a guard", func(t *testing.T) {
		viewer := actor(engine.AccessView, true)
		err := v.e.CreateEach(ctx, viewer, engine.Options{}, func(create func(string, *engine.Input) (*engine.Record, error)) error {
			_, err := create("boxes", input(map[string]any{"name": "five"}, nil))
			return err
		})
		require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err))
		require.Equal(t, 1, count("boxes"))
	})

	t.Run("a Prepare hook", func(t *testing.T) {
		p := newEnv(t, engine.Hooks{Prepare: func(context.Context, *engine.Call, *engine.Record, *engine.Input) error { return nil }}, engine.Config{})
		err := p.e.CreateEach(ctx, p.admin, engine.Options{}, func(create func(string, *engine.Input) (*engine.Record, error)) error {
			_, err := create("boxes", input(map[string]any{"name": "six"}, nil))
			return err
		})
		require.Equal(t, scopekit.EBADREQUEST, scopekit.ErrorCode(err))
	})
}
