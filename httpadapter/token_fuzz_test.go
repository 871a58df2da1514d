package httpadapter_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/scoping"
	"golang.org/x/crypto/bcrypt"
)

// FuzzTokenForm holds the token endpoint to its contract whatever the form
// (and Basic credentials) a client sends: a JSON token or OAuth error
// with a 200, 400, 401 or 413, Cache-Control: no-store, never a 5xx.
func FuzzTokenForm(f *testing.F) {
	for _, s := range []struct{ body, basic string }{
		{"grant_type=client_credentials&client_id=cid&client_secret=secret", ""},
		{"grant_type=client_credentials", "cid:secret"},
		{"grant_type=client_credentials", "cid%3A:sec%ZZ"},
		{"grant_type=password&username=a%40b.c&password=x&client_id=cid", ""},
		{"grant_type=refresh_token&refresh_token=abc", ""},
		{"grant_type=authorization_code&code=x&redirect_uri=http://x&code_verifier=y&client_id=cid", ""},
		{"grant_type=client_credentials&grant_type=password", ""},
		{"grant_type=%00&client_id=%ff", ""},
		{"client_id=" + strings.Repeat("c", 5000), ""},
		{"%zz", ""}, {"", ""}, {"&&&=", ""}, {"grant_type=client_credentials&client_id=cid&client_secret=secret&scope=a", "other:x"},
	} {
		f.Add(s.body, s.basic)
	}
	db := bolttest.Open(f, scoping.DefaultSchema())
	svc := scoping.NewService(db)
	as := &auth.Service{Store: db.AuthStore(), Directory: scoping.Directory(db), BcryptCost: bcrypt.MinCost}
	ctx := context.Background()
	var acct, uid string
	if err := svc.Setup(ctx, func(a *scoping.Admin) error {
		ac, err := a.EnsureAccount("acme", "Acme", "USD")
		if err != nil {
			return err
		}
		acct = ac.ID
		u, err := a.EnsureMember(acct, scoping.Member{Email: "bot@acme.test", Name: "Bot", UserType: "service", Role: "Account Admin"})
		if u != nil {
			uid = u.ID
		}
		return err
	}); err != nil {
		f.Fatal(err)
	}
	if err := as.SetServiceCredential(ctx, acct, uid, "cid", "secret"); err != nil {
		f.Fatal(err)
	}
	h := httpadapter.OAuthTokenHandler(as, nil)
	f.Fuzz(func(t *testing.T, body, basic string) {
		r := httptest.NewRequest(http.MethodPost, "/oauth/token", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if id, secret, ok := strings.Cut(basic, ":"); ok {
			r.SetBasicAuth(id, secret)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		switch w.Code {
		case 200, 400, 401, 413:
		default:
			t.Fatalf("status %d for %q (basic %q): %s", w.Code, body, basic, w.Body)
		}
		if w.Header().Get("Cache-Control") != "no-store" {
			t.Fatal("no Cache-Control: no-store")
		}
		var out map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			t.Fatalf("not JSON: %s", w.Body)
		}
		if _, ok := out["access_token"]; ok != (w.Code == 200) {
			t.Fatalf("status %d with body %s", w.Code, w.Body)
		}
		if w.Code != 200 {
			if e, _ := out["error"].(string); e == "" {
				t.Fatalf("error without a code: %s", w.Body)
			}
		}
	})
}
