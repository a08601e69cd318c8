package webhookout_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"
)

// fakeResolver returns a resolver whose DNS server, on 127.0.0.1, answers
// every A query with 127.0.0.1 and every other query with no records. It
// stands for a public name whose owner points it at Herald's own host.
func fakeResolver(t *testing.T) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if resp := dnsAnswer(buf[:n]); resp != nil {
				_, _ = pc.WriteTo(resp, from)
			}
		}
	}()
	return &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "udp4", pc.LocalAddr().String())
		},
	}
}

// deadResolver fails every lookup, as a name that does not resolve.
func deadResolver() *net.Resolver {
	return &net.Resolver{
		PreferGo: true,
		Dial: func(context.Context, string, string) (net.Conn, error) {
			return nil, errors.New("no DNS server here")
		},
	}
}

// dnsAnswer builds the response to a one-question DNS query (RFC 1035 §4):
// the question echoed, and for type A one answer, 127.0.0.1.
func dnsAnswer(q []byte) []byte {
	if len(q) < 12 {
		return nil
	}
	end := 12
	for end < len(q) && q[end] != 0 {
		end += 1 + int(q[end])
	}
	end += 1 + 4 // the root label, QTYPE and QCLASS
	if end > len(q) {
		return nil
	}
	isA := q[end-4] == 0 && q[end-3] == 1
	resp := []byte{q[0], q[1], 0x85, 0x80, 0, 1, 0, 0, 0, 0, 0, 0} // QR AA RD RA, NOERROR, 1 question
	resp = append(resp, q[12:end]...)
	if isA {
		resp[7] = 1 // ANCOUNT
		resp = append(resp,
			0xC0, 12, // the name in the question
			0, 1, 0, 1, // A, IN
			0, 0, 0, 60, // TTL
			0, 4, 127, 0, 0, 1)
	}
	return resp
}

// trap is a listener that counts the connections it accepts.
type trap struct {
	ln    net.Listener
	conns chan net.Addr
}

func newTrap(t *testing.T) *trap {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tr := &trap{ln: ln, conns: make(chan net.Addr, 64)}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			tr.conns <- c.RemoteAddr()
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return tr
}

func (tr *trap) port() string {
	_, port, _ := net.SplitHostPort(tr.ln.Addr().String())
	return port
}

// accepted waits for the trap's next connection.
func (tr *trap) accepted(t *testing.T) {
	t.Helper()
	select {
	case <-tr.conns:
	case <-time.After(5 * time.Second):
		t.Fatal("the trap accepted no connection")
	}
}

// assertUntouched connects to the trap itself and checks that its own
// connection is the first the trap accepted: connections are accepted in
// the order they were established, so any earlier one would show first.
func (tr *trap) assertUntouched(t *testing.T) {
	t.Helper()
	c, err := net.Dial("tcp4", tr.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	select {
	case a := <-tr.conns:
		if a.String() != c.LocalAddr().String() {
			t.Fatalf("the trap accepted a connection from %v before the probe's", a)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the trap accepted nothing, not even the probe")
	}
}
