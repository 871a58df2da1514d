package provision_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/provision"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// The body of this example after the wiring is the code block of
// docs/operations.md, "Provisioning from Go" (TestDocsSampleCompiles).
func ExampleProvision() {
	dir, err := os.MkdirTemp("", "provision")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	db, err := boltstore.Open(filepath.Join(dir, "scopekit.db"), scoping.DefaultSchema())
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	svc := scoping.NewService(db)
	tokens := &auth.Service{Store: db.AuthStore(), Directory: scoping.Directory(db)}
	ctx := context.Background()

	spec := &provision.Spec{
		Accounts: []provision.Account{{Slug: "acme", Name: "Acme IT Services", DefaultCurrency: "USD"}},
		Users: []provision.User{{Email: "ada@acme.test", Name: "Ada Admin", Password: "correct horse battery",
			Memberships: []provision.Membership{{Account: "acme", Role: "Account Admin"}}}},
	}
	report, err := provision.Provision(ctx, db, svc, tokens, spec)
	if err != nil {
		log.Fatal(err) // scopekit.Errors, one per problem, or a *provision.ApplyError
	}
	fmt.Println(report.Written)

	report, err = provision.Provision(ctx, db, svc, tokens, spec) // again: nothing to write
	fmt.Println(report.Written, err)
	// Output:
	// [/accounts/0 /users/0/memberships/0 /users/0/password]
	// [] <nil>
}

// Ensure the code block of docs/operations.md, "Provisioning from Go", is
// the body of ExampleProvision, so that it compiles and runs.
func TestDocsSampleCompiles(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "docs", "operations.md"))
	require.NoError(t, err)
	m := regexp.MustCompile("(?s)## Provisioning from Go\n.*?```go\n(.*?)```").FindSubmatch(page)
	require.NotNil(t, m, "docs/operations.md has no Go block under \"Provisioning from Go\"")
	src, err := os.ReadFile("example_test.go")
	require.NoError(t, err)
	var body strings.Builder
	for _, line := range strings.SplitAfter(string(m[1]), "\n") {
		if strings.TrimSpace(line) != "" {
			body.WriteString("\t")
		}
		body.WriteString(line)
	}
	require.Contains(t, string(src), body.String(), "the docs sample is not ExampleProvision's code")
}
