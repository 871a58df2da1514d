package httpadapter_test

import (
	"os"
	"testing"

	"github.com/scopekit/scopekit/pgstore/pgtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.DropSchemas() // the schemas of SCOPEKIT_TEST_STORE=postgres runs
	os.Exit(code)
}
