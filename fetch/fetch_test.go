package fetch

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func hello(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) }

func TestLoopbackRefusedByDefault(t *testing.T) {
	srv := serve(t, hello)
	_, err := New(Options{}).Get(context.Background(), srv.URL)
	if KindOf(err) != KindBlocked {
		t.Fatalf("err = %v (kind %q), want blocked", err, KindOf(err))
	}
	var be *BlockedError
	if !errors.As(err, &be) || !strings.Contains(be.Reason, "loopback") {
		t.Fatalf("err = %v, want a loopback refusal", err)
	}
}

// A host name is checked after resolution: localhost resolves to loopback.
func TestNameResolvingToLoopbackRefused(t *testing.T) {
	srv := serve(t, hello)
	u := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	if _, err := New(Options{}).Get(context.Background(), u); KindOf(err) != KindBlocked {
		t.Fatalf("err = %v, want blocked", err)
	}
}

func TestLoopbackAllowedWithAllowPrivate(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("hello"))
	})
	res, err := New(Options{AllowPrivate: true}).Get(context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Body) != "hello" || res.Status != 200 || res.ContentType != "text/plain" {
		t.Fatalf("got %+v", res)
	}
}

// exemptServer lets f reach srv (and only srv) without AllowPrivate, as a
// stand-in for a public first hop.
func exemptServer(f *Fetcher, srv *httptest.Server) *Fetcher {
	first := netip.MustParseAddrPort(srv.Listener.Addr().String())
	f.exempt = func(ap netip.AddrPort) bool { return ap == first }
	return f
}

// Every redirect is checked: by the literal address up front, and at dial
// time after resolving a name (localhost here).
func TestRedirectToPrivateAddressRefused(t *testing.T) {
	private := serve(t, hello)
	viaName := strings.Replace(private.URL, "127.0.0.1", "localhost", 1)
	for _, target := range []string{viaName, private.URL, "http://10.0.0.1/secret", "http://169.254.169.254/latest/meta-data"} {
		first := serve(t, func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, target, http.StatusFound) })
		f := exemptServer(New(Options{}), first)
		if res, err := f.Get(context.Background(), first.URL); KindOf(err) != KindBlocked {
			t.Errorf("redirect to %s: err = %v, res %+v, want blocked", target, err, res)
		}
	}
	// The cloud metadata address stays refused with AllowPrivate.
	first := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data", http.StatusFound)
	})
	if _, err := New(Options{AllowPrivate: true}).Get(context.Background(), first.URL); KindOf(err) != KindBlocked {
		t.Errorf("link-local with AllowPrivate: err = %v, want blocked", err)
	}
}

// Redirects are followed when allowed, and bounded in number.
func TestRedirectLimit(t *testing.T) {
	var srv *httptest.Server
	srv = serve(t, func(w http.ResponseWriter, r *http.Request) {
		n := len(r.URL.Path)
		if n > 4 {
			w.Write([]byte("done"))
			return
		}
		http.Redirect(w, r, srv.URL+r.URL.Path+"a", http.StatusFound)
	})
	res, err := New(Options{AllowPrivate: true, MaxRedirects: 4}).Get(context.Background(), srv.URL+"/")
	if err != nil || string(res.Body) != "done" || !strings.HasSuffix(res.URL, "/aaaa") {
		t.Fatalf("4 redirects: %v %+v", err, res)
	}
	if _, err := New(Options{AllowPrivate: true, MaxRedirects: 3}).Get(context.Background(), srv.URL+"/"); KindOf(err) != KindTooManyRedirects {
		t.Fatalf("over the limit: err = %v", err)
	}
}

func TestSizeLimit(t *testing.T) {
	big := strings.Repeat("x", 2048)
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("chunked") {
			w.(http.Flusher).Flush() // no Content-Length: the limit applies while reading
		}
		w.Write([]byte(big))
	})
	f := New(Options{AllowPrivate: true, MaxBytes: 1024})
	for _, u := range []string{srv.URL, srv.URL + "?chunked"} {
		if _, err := f.Get(context.Background(), u); KindOf(err) != KindTooLarge {
			t.Errorf("%s: err = %v, want too-large", u, err)
		}
	}
	if res, err := New(Options{AllowPrivate: true, MaxBytes: 2048}).Get(context.Background(), srv.URL+"?chunked"); err != nil || len(res.Body) != 2048 {
		t.Fatalf("at the limit: %v", err)
	}
}

func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		select { // answers only once the client has given up
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	start := time.Now()
	_, err := New(Options{AllowPrivate: true, Timeout: 100 * time.Millisecond}).Get(context.Background(), srv.URL)
	if !IsTimeout(err) {
		t.Fatalf("err = %v (kind %q), want timeout", err, KindOf(err))
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %s", d)
	}
	var fe *Error
	if !errors.As(err, &fe) || !fe.Timeout() {
		t.Fatalf("not a typed timeout: %#v", err)
	}
}

// The caller's own cancellation is not a timeout.
func TestCanceledIsNotTimeout(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New(Options{AllowPrivate: true}).Get(ctx, srv.URL); KindOf(err) != KindCanceled {
		t.Fatalf("err = %v, want canceled", err)
	}
}

func TestStatusAndInvalidURL(t *testing.T) {
	srv := serve(t, http.NotFound)
	f := New(Options{AllowPrivate: true})
	_, err := f.Get(context.Background(), srv.URL)
	var fe *Error
	if !errors.As(err, &fe) || fe.Kind != KindStatus || fe.Status != 404 {
		t.Fatalf("err = %v, want status 404", err)
	}
	for _, u := range []string{"file:///etc/passwd", "ftp://example.com/x", "/relative", "http://"} {
		if _, err := f.Get(context.Background(), u); KindOf(err) != KindInvalidURL {
			t.Errorf("%s: err = %v, want invalid-url", u, err)
		}
	}
}

func TestRefusalTable(t *testing.T) {
	strict, open := New(Options{}), New(Options{AllowPrivate: true})
	cases := []struct {
		addr           string
		strict, opened bool // refused without / with AllowPrivate
	}{
		{"127.0.0.1", true, false}, {"::1", true, false}, {"::ffff:127.0.0.1", true, false},
		{"10.1.2.3", true, false}, {"172.16.0.1", true, false}, {"192.168.1.1", true, false},
		{"fd00::1", true, false}, {"100.64.0.1", true, false},
		{"169.254.169.254", true, true}, {"fe80::1", true, true},
		{"0.0.0.0", true, true}, {"::", true, true}, {"0.1.2.3", true, true},
		{"224.0.0.1", true, true}, {"ff02::1", true, true}, {"255.255.255.255", true, true},
		{"64:ff9b::7f00:1", true, true}, {"2002:7f00:1::", true, true},
		{"93.184.216.34", false, false}, {"2606:2800:220:1:248:1893:25c8:1946", false, false},
	}
	for _, c := range cases {
		a := netip.MustParseAddr(c.addr)
		if got := strict.refusal(a) != ""; got != c.strict {
			t.Errorf("%s without AllowPrivate: refused=%t, want %t", c.addr, got, c.strict)
		}
		if got := open.refusal(a) != ""; got != c.opened {
			t.Errorf("%s with AllowPrivate: refused=%t, want %t", c.addr, got, c.opened)
		}
	}
}

// A trusted host:port (the operator's translation server) is dialled
// without AllowPrivate; other private addresses, and redirects from the
// trusted host to them, stay refused.
func TestTrustedHost(t *testing.T) {
	trusted := serve(t, hello)
	other := serve(t, hello)
	f := New(Options{Trusted: []string{trusted.Listener.Addr().String()}})
	if res, err := f.Get(context.Background(), trusted.URL); err != nil || string(res.Body) != "hello" {
		t.Fatalf("trusted: %v %+v", err, res)
	}
	if _, err := f.Get(context.Background(), other.URL); KindOf(err) != KindBlocked {
		t.Errorf("untrusted loopback: err = %v, want blocked", err)
	}
	redirect := serve(t, func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, other.URL, http.StatusFound) })
	f = New(Options{Trusted: []string{redirect.Listener.Addr().String()}})
	if _, err := f.Get(context.Background(), redirect.URL); KindOf(err) != KindBlocked {
		t.Errorf("redirect from the trusted host: err = %v, want blocked", err)
	}
}

// Errors shown to callers name the URL's host, never an address of the
// server's own network: its resolver ("lookup x on 10.0.0.2:53"), its
// local address, or what a name resolved to.
func TestErrorsHideInternalAddresses(t *testing.T) {
	dnsErr := &url.Error{Op: "Get", URL: "http://docs.nowhere.test/x", Err: &net.OpError{Op: "dial", Net: "tcp",
		Err: &net.DNSError{Err: "no such host", Name: "docs.nowhere.test", Server: "10.9.8.7:53", IsNotFound: true}}}
	refused := &url.Error{Op: "Get", URL: "http://docs.example.test/x", Err: &net.OpError{Op: "dial", Net: "tcp",
		Source: &net.TCPAddr{IP: net.ParseIP("10.9.8.6"), Port: 41000}, Addr: &net.TCPAddr{IP: net.ParseIP("10.9.8.5"), Port: 80},
		Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}}
	for _, c := range []struct {
		err  *Error
		want string
	}{
		{&Error{Kind: KindNetwork, URL: "http://docs.nowhere.test/x", Err: dnsErr}, "could not resolve host docs.nowhere.test (no such host)"},
		{&Error{Kind: KindNetwork, URL: "http://docs.example.test/x", Err: refused}, "could not connect to docs.example.test: connection refused"},
		{&Error{Kind: KindBlocked, URL: "http://intranet.test/", Err: &BlockedError{Addr: netip.MustParseAddr("10.9.8.4"), Reason: "private"}},
			"host intranet.test resolves to an address that is private"},
		{&Error{Kind: KindBlocked, URL: "http://10.9.8.4/", Err: &BlockedError{Addr: netip.MustParseAddr("10.9.8.4"), Reason: "private"}},
			"address 10.9.8.4 is private"},
	} {
		msg := c.err.Error()
		if !strings.Contains(msg, c.want) {
			t.Errorf("%q does not say %q", msg, c.want)
		}
		for _, leak := range []string{"10.9.8.7", "10.9.8.6", "10.9.8.5", ":53"} {
			if strings.Contains(msg, leak) {
				t.Errorf("%q shows %s", msg, leak)
			}
		}
		if c.err.Kind == KindNetwork && !errors.Is(c.err, c.err.Err) {
			t.Errorf("%v: the transport error is no longer in the chain", c.err)
		}
	}
	// A real failed resolution, through Get and Do alike.
	f := New(Options{Timeout: 5 * time.Second})
	_, err := f.Get(context.Background(), "http://docsapi-no-such-host.invalid/")
	if KindOf(err) != KindNetwork || !strings.Contains(err.Error(), "could not resolve host docsapi-no-such-host.invalid") || strings.Contains(err.Error(), ":53") {
		t.Errorf("Get: %v (kind %q)", err, KindOf(err))
	}
	req, _ := http.NewRequest("POST", "http://docsapi-no-such-host.invalid/", nil)
	if _, err := f.Do(req); KindOf(err) != KindNetwork || strings.Contains(err.Error(), ":53") {
		t.Errorf("Do: %v (kind %q)", err, KindOf(err))
	}
}
