package webapp

import "testing"

// Ensure a share link's amounts show exactly, grouped by thousands, with
// at least two places and their currency.
func TestMoneyIn(t *testing.T) {
	for in, want := range map[string]string{"10794.25": "10,794.25 USD", "-900": "-900.00 USD", "0.5": "0.50 USD",
		"1234567.891": "1,234,567.891 USD", "12345678901234567890.01": "12,345,678,901,234,567,890.01 USD", "x": "x"} {
		if got := moneyIn(in, "USD"); got != want {
			t.Errorf("moneyIn(%q) = %q, want %q", in, got, want)
		}
	}
}

// Ensure a limiter lets a key's burst through, then refuses it, and keeps
// keys apart; a link is throttled by its request, whatever the secret.
func TestLimiter(t *testing.T) {
	l := newLimiter(1, 2)
	if !l.allow("a") || !l.allow("a") || l.allow("a") {
		t.Error("a burst of 2, then refused")
	}
	if !l.allow("b") {
		t.Error("another key has its own bucket")
	}
	if linkKey("1.2.secret") != "1.2" || linkKey("plain") != "plain" {
		t.Error("a link is throttled by its request, whatever the secret")
	}
}
