package dashboard

// Config is the dashboard's part of the configuration.
type Config struct {
	// SecureCookie marks the session cookie Secure even when the request
	// itself is plain HTTP: for a TLS-terminating proxy in front. Requests
	// that arrive over TLS always get a Secure cookie.
	SecureCookie bool
	// LoginAttemptsPerMinute bounds sign-in attempts per client (an
	// address, or an IPv6 /64) and, over all clients, per email address
	// (0: 10); see attempts for what happens past the second.
	LoginAttemptsPerMinute int
	// LiveSending says Meta's Cloud API is configured, so live keys can
	// send; without it Developer settings says live keys are refused.
	LiveSending bool
}

// WithDefaults fills in zero values.
func (c Config) WithDefaults() Config {
	if c.LoginAttemptsPerMinute <= 0 {
		c.LoginAttemptsPerMinute = 10
	}
	return c
}
