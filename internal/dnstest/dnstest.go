// Package dnstest runs a real DNS server for tests (miekg/dns) on a
// loopback address, over UDP and TCP, answering the TXT records a test
// sets: what domain verification looks up is a DNS exchange on the wire,
// not a stub of the resolver.
package dnstest

import (
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/miekg/dns"
	"github.com/scopekit/scopekit/sso"
)

// Server is a running DNS server.
type Server struct {
	// Addr is its address (host:port, UDP and TCP).
	Addr string

	mu     sync.Mutex
	txt    map[string][]string // by lower-case fully qualified name
	failed map[string]bool     // names answered SERVFAIL
}

// Resolver returns a resolver that asks the server only.
func (s *Server) Resolver() *net.Resolver { return sso.DNSResolver(s.Addr) }

// Start runs a server until the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{txt: map[string][]string{}, failed: map[string]bool{}}
	var udp net.PacketConn
	var tcp net.Listener
	for try := 0; tcp == nil; try++ { // the same port for both, as resolvers expect
		var err error
		if udp, err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		if tcp, err = net.Listen("tcp", udp.LocalAddr().String()); err != nil {
			udp.Close()
			if try == 10 {
				t.Fatal(err)
			}
		}
	}
	s.Addr = udp.LocalAddr().String()
	for _, srv := range []*dns.Server{{PacketConn: udp, Handler: s}, {Listener: tcp, Handler: s}} {
		started := make(chan struct{})
		srv.NotifyStartedFunc = func() { close(started) }
		go func() { _ = srv.ActivateAndServe() }()
		<-started
		t.Cleanup(func() { _ = srv.Shutdown() })
	}
	return s
}

// SetTXT makes name answer the TXT records values (each one string); no
// values: the name does not exist.
func (s *Server) SetTXT(name string, values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := dns.CanonicalName(name)
	if len(values) == 0 {
		delete(s.txt, key)
		return
	}
	s.txt[key] = values
}

// Fail makes the server answer SERVFAIL for name (fail false: answer
// again).
func (s *Server) Fail(name string, fail bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failed[dns.CanonicalName(name)] = fail
}

// ServeDNS implements dns.Handler.
func (s *Server) ServeDNS(w dns.ResponseWriter, req *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(req)
	m.Authoritative = true
	s.mu.Lock()
	for _, q := range req.Question {
		name := strings.ToLower(q.Name)
		vals, ok := s.txt[name]
		switch {
		case s.failed[name]:
			m.Rcode = dns.RcodeServerFailure
		case !ok:
			m.Rcode = dns.RcodeNameError
		case q.Qtype == dns.TypeTXT:
			for _, v := range vals {
				m.Answer = append(m.Answer, &dns.TXT{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 60},
					Txt: splitTXT(v)})
			}
		}
	}
	s.mu.Unlock()
	_ = w.WriteMsg(m)
}

// splitTXT cuts a record's text into character-strings of at most 255
// bytes, as a long record is published.
func splitTXT(v string) []string {
	var out []string
	for len(v) > 255 {
		out = append(out, v[:255])
		v = v[255:]
	}
	return append(out, v)
}
