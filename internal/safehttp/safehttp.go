// Package safehttp is the HTTP client ScopeKit calls other servers with
// on its users' word (webhook deliveries, single sign-on providers): it
// reaches only public addresses unless told otherwise, checked on the
// address actually dialed, follows no redirect and uses no proxy.
package safehttp

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// nonPublic are address ranges the client never reaches unless private
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

// NewClient returns an HTTP client with the timeout, no redirects, no
// proxy, and unless allowPrivate a dialer that refuses non-public
// addresses.
func NewClient(timeout time.Duration, allowPrivate bool) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		dialer.Control = guardDial
	}
	tr := &http.Transport{
		DialContext:           dialer.DialContext,
		MaxIdleConnsPerHost:   64,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: timeout,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{Timeout: timeout, Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// guardDial refuses connections to non-public addresses: the check at
// connection time, made on the address actually dialed so that DNS
// rebinding cannot get around a check made earlier on the name (a
// webhook subscription's when it was saved).
func guardDial(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("unexpected dial address %q", address)
	}
	if !IsPublic(ap.Addr()) {
		return fmt.Errorf("destination address %s is not public (private destinations are not allowed)", ap.Addr())
	}
	return nil
}
