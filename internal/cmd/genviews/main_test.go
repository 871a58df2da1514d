package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
)

// Ensure the committed views are what the declarations generate now.
func TestViewsFresh(t *testing.T) {
	checkFresh(t, Generate, "scoping/views/views_gen.go", "go generate ./scoping/views")
	checkFresh(t, GenerateNames, "scoping/views/names_gen.go", "go generate ./scoping/views")
}

// Ensure the client's committed record attributes are what the
// declarations generate now.
func TestClientFresh(t *testing.T) {
	checkFresh(t, GenerateClient, "client/attrs_gen.go", "go generate ./client")
}

// checkFresh fails when the committed file (relative to the repository's
// root) differs from what generate makes of the declarations.
func checkFresh(t *testing.T, generate func(*engine.Schema) ([]byte, error), file, how string) {
	t.Helper()
	schema, err := scoping.NewSchema()
	if err != nil {
		t.Fatal(err)
	}
	want, err := generate(schema)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../../" + file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run %s", file, how)
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
	if src, err := GenerateClient(scoping.DefaultSchema()); err != nil ||
		!regexp.MustCompile(`\n\tProjectName +string +`+"`json:\"project-name\"`").Match(src) {
		t.Errorf("no ProjectAttributes.ProjectName field (err %v)", err)
	}
}
