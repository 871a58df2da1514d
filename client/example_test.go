package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/url"

	"github.com/scopekit/scopekit/client"
)

// List the demo's projects with their contract revenue, as the demo's
// service account (serverURL is the server's address, e.g.
// "http://127.0.0.1:8080").
func Example() {
	ctx := context.Background()
	c := client.NewClientCredentials(serverURL, "demo-bot", "demo-bot-secret")
	for p, err := range c.ListProjects(ctx, url.Values{"filter[name]": {"globex"}}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %s %s\n", p.ProjectName, p.ContractRevenue, p.Currency)
	}
	// Output:
	// Globex firewall refresh: 10794.25 USD
}

// Sign a person in with the password grant of an OAuth application; the
// client refreshes the token with the refresh token when the server
// refuses it, and signs in again when the refresh fails.
func ExampleNewPassword() {
	ctx := context.Background()
	c := client.NewPassword(serverURL, "demo-portal", "demo-portal-secret", "admin@demo.test", "demo-admin-password")
	me, err := c.Me(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(me.Email, "in", me.AccountSlug)
	// Output:
	// admin@demo.test in demo
}

// Read every figure of a project's price and its merge data.
func ExampleClient_GetPricing() {
	ctx := context.Background()
	c := client.NewClientCredentials(serverURL, "demo-bot", "demo-bot-secret")
	price, err := c.GetPricing(ctx, "1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("total contract value:", price.TotalContractValue, price.Currency.Code)
	md, err := c.GetMergeData(ctx, "1", 2)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("merge data version", md.Version)
	// Output:
	// total contract value: 10794.25 USD
	// merge data version 2
}

// Failures are *client.Error values carrying the JSON:API error objects.
func ExampleError() {
	ctx := context.Background()
	c := client.NewClientCredentials(serverURL, "demo-bot", "demo-bot-secret")
	_, err := c.GetProject(ctx, "404404")
	var e *client.Error
	if errors.As(err, &e) && e.NotFound() {
		fmt.Println(e.StatusCode, e.Errors[0].Title)
	}
	// Output:
	// 404 Not Found
}

// Types without a typed helper go through the generic functions: here the
// catalog's phases, read under the account slug (v1) and decoded into
// their generated attributes.
func ExampleList() {
	ctx := context.Background()
	c := client.NewClientCredentials(serverURL, "demo-bot", "demo-bot-secret")
	slug, err := c.Slug(ctx)
	if err != nil {
		log.Fatal(err)
	}
	var names []string
	for r, err := range client.List[client.Resource](ctx, c, "/"+slug+"/v1/phases", nil) {
		if err != nil {
			log.Fatal(err)
		}
		var phase client.PhaseAttributes
		if err := r.DecodeAttributes(&phase); err != nil {
			log.Fatal(err)
		}
		names = append(names, phase.Name)
	}
	fmt.Println(names)
	// Output:
	// [Plan Design Implement]
}
