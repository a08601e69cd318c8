package media

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"time"
)

// SetNow replaces the clock that decides when cached outcomes expire.
func (i *Inspector) SetNow(now func() time.Time) { i.now = now }

// SetResolver makes both dialers resolve names with r. The guarded dialer
// still checks, in its Control function, the address r's answer leads to.
func (i *Inspector) SetResolver(r *net.Resolver) {
	i.guarded.Resolver = r
	i.plain.Resolver = r
}

// SetRootCAs makes the client trust certificates signed by pool (an
// httptest TLS server's).
func (i *Inspector) SetRootCAs(pool *x509.CertPool) {
	i.client.Transport.(*http.Transport).TLSClientConfig = &tls.Config{RootCAs: pool}
}

// CacheLen is the number of cached outcomes, expired or not.
func (i *Inspector) CacheLen() int { return i.cache.len() }
