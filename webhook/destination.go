package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"time"

	"github.com/scopekit/scopekit/internal/safehttp"
)

// CheckDestination returns the destination check of scoping.WebhookConfig:
// an absolute https URL (http too when allowPrivate) whose host resolves
// only to public addresses (any address when allowPrivate). The error text
// completes "destination-url ...".
func CheckDestination(allowPrivate bool) func(ctx context.Context, rawURL string) error {
	return func(ctx context.Context, rawURL string) error {
		u, err := checkURL(rawURL, allowPrivate)
		if err != nil || allowPrivate {
			return err
		}
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", u.Hostname())
		if err != nil || len(addrs) == 0 {
			return fmt.Errorf("host %q cannot be resolved", u.Hostname())
		}
		for _, a := range addrs {
			if !safehttp.IsPublic(a) {
				return fmt.Errorf("must not point at a loopback, private or link-local address (%s resolves to %s)", u.Hostname(), a.Unmap())
			}
		}
		return nil
	}
}

func checkURL(rawURL string, allowPrivate bool) (*url.URL, error) {
	u, err := url.Parse(rawURL)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Hostname() == "" {
		return nil, errors.New("must be an absolute URL such as https://example.com/hooks")
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allowPrivate:
	case u.Scheme == "http":
		return nil, errors.New("must use https")
	default:
		return nil, errors.New("must be an https URL")
	}
	return u, nil
}
