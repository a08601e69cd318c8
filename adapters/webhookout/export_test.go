package webhookout

import (
	"crypto/tls"
	"crypto/x509"
	"net"
)

// SetResolver makes the poster resolve names with r, when dialing and in
// CheckURL. The guarded dialer still checks, in its Control function, the
// address r's answer leads to.
func (p *Poster) SetResolver(r *net.Resolver) {
	p.guarded.Resolver = r
	p.plain.Resolver = r
	p.resolver = r
}

// SetRootCAs makes the client trust certificates signed by pool (an
// httptest TLS server's).
func (p *Poster) SetRootCAs(pool *x509.CertPool) {
	p.transport.TLSClientConfig = &tls.Config{RootCAs: pool}
}
