package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/scoping"
)

// Ensure the committed views are what the declarations generate now.
func TestViewsFresh(t *testing.T) {
	schema, err := scoping.NewSchema()
	if err != nil {
		t.Fatal(err)
	}
	want, err := Generate(schema)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../../scoping/views/views_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("scoping/views/views_gen.go is stale: run go generate ./scoping/views")
	}
}

func TestNames(t *testing.T) {
	for in, want := range map[string]string{"project-name": "ProjectName", "service-id": "ServiceID", "psa?": "Psa",
		"destination-url": "DestinationURL", "sha256": "Sha256"} {
		if got := GoName(in); got != want {
			t.Errorf("GoName(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"projects": "Project", "currencies": "Currency", "lines-of-business": "LineOfBusiness",
		"line-of-business-approvals": "LineOfBusinessApproval", "project-expenses": "ProjectExpense", "webhook-deliveries": "WebhookDelivery"} {
		if got := Singular(in); got != want {
			t.Errorf("Singular(%q) = %q, want %q", in, got, want)
		}
	}
	if src, err := Generate(scoping.DefaultSchema()); err != nil || !strings.Contains(string(src), "func (v Project) ProjectName() string") {
		t.Errorf("no ProjectName accessor (err %v)", err)
	}
}
