package e2e

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/test/testenv"
)

// serveArgs is serve with flags on the command line, which win over the
// environment, HERALD_ADDR included.
func (in *instance) serveArgs(env []string, args ...string) *server {
	in.t.Helper()
	return &server{testenv.Serve(in.t, binary, append(append(in.env, "HERALD_SANDBOX_STEP_DELAY=50ms"), env...), args...)}
}

// warnings returns the messages of the warn-level lines of a server's JSON
// log.
func warnings(logs string) []string {
	var out []string
	for _, l := range strings.Split(logs, "\n") {
		var line struct{ Level, Msg string }
		if json.Unmarshal([]byte(l), &line) == nil && line.Level == "warn" {
			out = append(out, line.Msg)
		}
	}
	return out
}

func warned(logs, prefix string) bool {
	for _, w := range warnings(logs) {
		if strings.HasPrefix(w, prefix) {
			return true
		}
	}
	return false
}

const (
	plainHTTPWarning = "serving plain HTTP on an address other than loopback"
	profilerWarning  = "the profiler listens on an address other than loopback"
	filesWarning     = "other users of this machine may read the database file"
)

// TestDatabaseFilesOwnerOnly: the SQLite database the CLI and the server
// create, and its -wal and -shm files, can be read by their owner only; a
// database made readable to others is reported at start, and left alone.
func TestDatabaseFilesOwnerOnly(t *testing.T) {
	t.Parallel()
	in := newInstance(t, "sqlite")
	db := filepath.Join(in.dir, "herald.db")
	var key struct{ Token string }
	in.cli(&key, "keys", "create", "--name", "e2e", "--mode", "test")
	srv := in.serve()
	if code := srv.call(t, "GET", "/v1/campaigns", key.Token, nil, nil); code != 200 {
		t.Fatalf("GET /v1/campaigns: %d", code)
	}
	for _, p := range []string{db, db + "-wal", db + "-shm"} {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if mode := info.Mode().Perm(); mode != 0o600 {
			t.Errorf("%s has mode %v, want -rw-------", filepath.Base(p), mode)
		}
	}
	if warned(srv.Logs(), filesWarning) {
		t.Errorf("a warning about files Herald made owner-only:\n%s", srv.Logs())
	}
	srv.Stop(t)

	if err := os.Chmod(db, 0o644); err != nil {
		t.Fatal(err)
	}
	srv = in.serve()
	if code := srv.call(t, "GET", "/v1/campaigns", key.Token, nil, nil); code != 200 {
		t.Fatalf("GET /v1/campaigns: %d", code)
	}
	if !warned(srv.Logs(), filesWarning) {
		t.Errorf("no warning about a database others may read:\n%s", srv.Logs())
	}
	srv.Stop(t)
	if info, _ := os.Stat(db); info.Mode().Perm() != 0o644 {
		t.Errorf("the server changed the operator's mode to %v", info.Mode().Perm())
	}
}

// TestExposedListenersWarn: serve on every interface without TLS, and the
// profiler anywhere but loopback, start with a warning each; on loopback,
// neither warns.
func TestExposedListenersWarn(t *testing.T) {
	t.Parallel()
	in := newInstance(t, "sqlite")
	srv := in.serve("HERALD_DEBUG_ADDR=127.0.0.1:0")
	if code := srv.call(t, "GET", "/healthz", "", nil, nil); code != 200 {
		t.Fatalf("GET /healthz: %d", code)
	}
	if logs := srv.Logs(); warned(logs, plainHTTPWarning) || warned(logs, profilerWarning) {
		t.Errorf("loopback listeners warned: %q", warnings(logs))
	}
	srv.Stop(t)

	exposed := in.serveArgs(nil, "--addr", "0.0.0.0:0", "--debug-addr", "0.0.0.0:0")
	if code := exposed.call(t, "GET", "/healthz", "", nil, nil); code != 200 {
		t.Fatalf("GET /healthz on every interface: %d", code)
	}
	logs := exposed.Logs()
	if !warned(logs, plainHTTPWarning) {
		t.Errorf("no warning for plain HTTP on every interface:\n%s", logs)
	}
	if !warned(logs, profilerWarning) {
		t.Errorf("no warning for the profiler on every interface:\n%s", logs)
	}
	exposed.Stop(t)
}

// TestServeTLS: with HERALD_TLS_CERT_FILE and HERALD_TLS_KEY_FILE the
// server answers HTTPS with that certificate, even on every interface
// without a warning, and refuses plain HTTP; one of the two alone is a
// usage error naming both.
func TestServeTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	certFile, keyFile, pool := selfSignedCert(t, dir)
	in := newInstance(t, "sqlite")
	srv := in.serveArgs([]string{"HERALD_TLS_CERT_FILE=" + certFile, "HERALD_TLS_KEY_FILE=" + keyFile}, "--addr", "0.0.0.0:0")
	if !strings.HasPrefix(srv.Base, "https://") {
		t.Fatalf("the server did not log that it serves TLS: %s", srv.Base)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	res, err := client.Get(srv.Base + "/healthz")
	if err != nil {
		t.Fatalf("GET /healthz over TLS: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || res.TLS == nil || res.TLS.PeerCertificates[0].Subject.CommonName != "herald e2e" {
		t.Fatalf("GET /healthz over TLS: %d, TLS %v", res.StatusCode, res.TLS != nil)
	}
	plain, err := http.Get("http://" + strings.TrimPrefix(srv.Base, "https://") + "/healthz")
	if err == nil {
		plain.Body.Close()
		if plain.StatusCode != http.StatusBadRequest {
			t.Errorf("plain HTTP to the TLS port: %d, want 400", plain.StatusCode)
		}
	}
	if warned(srv.Logs(), plainHTTPWarning) {
		t.Errorf("a TLS server warned about plain HTTP:\n%s", srv.Logs())
	}
	srv.Stop(t)

	cmd := exec.Command(binary, "serve")
	cmd.Env = append(in.env, "HERALD_ADDR=127.0.0.1:0", "HERALD_TLS_CERT_FILE="+certFile)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 ||
		!strings.Contains(stderr.String(), "HERALD_TLS_CERT_FILE") || !strings.Contains(stderr.String(), "HERALD_TLS_KEY_FILE") {
		t.Fatalf("a certificate without its key: %v, stderr %q; want exit 2 naming both settings", err, stderr.String())
	}
}

// selfSignedCert writes a self-signed certificate for 127.0.0.1 and its key
// into dir, and returns their paths and a pool that trusts it.
func selfSignedCert(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "herald e2e"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}
