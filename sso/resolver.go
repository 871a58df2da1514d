package sso

import (
	"context"
	"net"
	"time"
)

// DNSResolver returns the resolver of domain verification
// (scoping.SSOConfig.Resolver): the system's when server is "", else one
// that asks the DNS server at server (host:port) only, over UDP and TCP,
// for a deployment whose verification records live on a DNS server of
// its own, or a test's.
func DNSResolver(server string) *net.Resolver {
	if server == "" {
		return net.DefaultResolver
	}
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		d := net.Dialer{Timeout: 5 * time.Second}
		return d.DialContext(ctx, network, server)
	}}
}
