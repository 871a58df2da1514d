package auth_test

import (
	"testing"

	"github.com/scopekit/scopekit/auth"
)

// Ensure the Bearer scheme is matched case-insensitively (RFC 9110 11.1)
// and nothing else passes for a bearer token.
func TestBearerToken(t *testing.T) {
	for _, tc := range []struct {
		header, token string
		ok            bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer abc", "abc", true},
		{"BEARER abc", "abc", true},
		{"Bearer   abc  ", "abc", true},
		{" Bearer abc", "abc", true},
		{"Bearer", "", false},
		{"Bearer ", "", false},
		{"Bearerabc", "", false},
		{"Basic abc", "", false},
		{"abc", "", false},
		{"", "", false},
	} {
		got, ok := auth.BearerToken(tc.header)
		if got != tc.token || ok != tc.ok {
			t.Errorf("BearerToken(%q) = %q, %v; want %q, %v", tc.header, got, ok, tc.token, tc.ok)
		}
	}
}
