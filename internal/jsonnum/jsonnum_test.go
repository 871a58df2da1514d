package jsonnum

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestValid(t *testing.T) {
	for s, ok := range map[string]bool{"0": true, "-0": true, "12": true, "3.25": true, "1e9": true, "-1.5E+3": true,
		"": false, "-": false, "01": false, "1.": false, ".5": false, "+1": false, "1e": false, "Inf": false, "0x10": false, "1_0": false} {
		require.Equal(t, ok, Valid(s), s)
		require.Equal(t, ok, json.Valid([]byte(s)), "agrees with encoding/json: %q", s)
	}
}
