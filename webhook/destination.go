package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"syscall"
	"time"
)

// nonPublic are address ranges a webhook never reaches unless private
// destinations are allowed, besides those net.IP's predicates cover.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"), // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"), // NAT64 of any IPv4 address
	netip.MustParsePrefix("2001:db8::/32"),
}

// IsPublic reports whether ip is a public unicast address: not loopback,
// private, link-local, unspecified, multicast or reserved.
func IsPublic(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

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
			if !IsPublic(a) {
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

// guardDial refuses connections to non-public addresses: the check at
// delivery time, made on the address actually dialed so that DNS
// rebinding cannot get around the check made when the subscription was
// saved.
func guardDial(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("webhook: unexpected dial address %q", address)
	}
	if !IsPublic(ap.Addr()) {
		return fmt.Errorf("webhook: destination address %s is not public (private destinations are not allowed)", ap.Addr())
	}
	return nil
}
