// Package fetch is docsapi's one way to make an HTTP request on a caller's
// behalf (content import, OpenAPI spec URLs, integration deliveries). Such a
// request must not become a way into the server's own network, so the
// Fetcher refuses loopback, private, link-local, unspecified and multicast
// addresses. The address is checked when the connection is dialled, after
// DNS resolution, for the first request and for every redirect: a name that
// resolves to a public address at check time and to 127.0.0.1 at dial time
// (DNS rebinding) is still refused, because only the dialled address counts.
// Responses are bounded in size, total time and number of redirects.
package fetch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Defaults of Options' zero values.
const (
	DefaultMaxBytes     = 10 << 20
	DefaultTimeout      = 30 * time.Second
	DefaultMaxRedirects = 5
)

// Options bound a Fetcher. Zero values take the defaults above.
type Options struct {
	// AllowPrivate lets requests reach loopback, private (RFC 1918, RFC 4193)
	// and shared (RFC 6598) addresses: for self-hosted intranets and tests
	// with local servers (the --allow-private-fetch flag). Link-local
	// addresses (cloud metadata services), unspecified, multicast, broadcast
	// and reserved addresses stay refused.
	AllowPrivate bool
	MaxBytes     int64         // largest accepted response body
	Timeout      time.Duration // whole request: dial, redirects and body
	MaxRedirects int           // redirects followed; more is an error
	UserAgent    string
	// Trusted are host:port pairs an operator configured (the translation
	// server): they are dialled without the address check, so a provider
	// on loopback or the intranet works without AllowPrivate opening every
	// user-given URL. Redirects elsewhere are still checked.
	Trusted []string
}

// Fetcher makes guarded GET requests. It is safe for concurrent use.
type Fetcher struct {
	opts   Options
	client *http.Client
	// exempt lets tests reach one local server without AllowPrivate.
	exempt func(netip.AddrPort) bool
}

// Kind classifies a fetch failure.
type Kind string

const (
	KindTimeout          Kind = "timeout"            // the total time ran out
	KindBlocked          Kind = "blocked"            // the address is not allowed
	KindTooLarge         Kind = "too-large"          // the body exceeds MaxBytes
	KindTooManyRedirects Kind = "too-many-redirects" // more than MaxRedirects
	KindStatus           Kind = "status"             // the server answered non-2xx
	KindInvalidURL       Kind = "invalid-url"        // not an absolute http(s) URL
	KindCanceled         Kind = "canceled"           // the caller's context ended
	KindNetwork          Kind = "network"            // anything else: DNS, refused, reset...
)

// Error is every error Get returns.
type Error struct {
	Kind   Kind
	URL    string // the URL being fetched when it failed (after redirects)
	Status int    // for KindStatus
	Err    error
}

// Error is shown to callers (import and OpenAPI errors, webhook delivery
// logs): it names the URL's host, never an address the server's own
// network gave (its DNS resolver, its local address, what a name resolved
// to); Unwrap keeps the transport's error for the server's log.
func (e *Error) Error() string {
	switch e.Kind {
	case KindStatus:
		return fmt.Sprintf("fetch %s: server answered %d", e.URL, e.Status)
	case KindTimeout:
		return fmt.Sprintf("fetch %s: timed out", e.URL)
	case KindBlocked:
		var be *BlockedError
		if errors.As(e.Err, &be) {
			return fmt.Sprintf("fetch %s: %s", e.URL, be.describe(hostOf(e.URL)))
		}
	case KindNetwork:
		return fmt.Sprintf("fetch %s: %s", e.URL, networkFailure(hostOf(e.URL), e.Err))
	}
	if e.Err != nil {
		return fmt.Sprintf("fetch %s: %v", e.URL, e.Err)
	}
	return fmt.Sprintf("fetch %s: %s", e.URL, e.Kind)
}

// hostOf is rawURL's host name ("" when it has none).
func hostOf(rawURL string) string {
	if u, err := url.Parse(rawURL); err == nil {
		return u.Hostname()
	}
	return ""
}

// networkFailure words a transport error by what failed, with the URL's
// host and never the addresses in the error's own text: "lookup x on
// 10.0.0.2:53" names the server's resolver, "dial tcp 10.0.0.7:41000->…"
// its local address.
func networkFailure(host string, err error) string {
	var dns *net.DNSError
	var op *net.OpError
	var errno syscall.Errno
	switch {
	case errors.As(err, &dns) && dns.IsNotFound:
		return "could not resolve host " + host + " (no such host)"
	case errors.As(err, &dns) && dns.IsTimeout:
		return "could not resolve host " + host + " (the name server did not answer in time)"
	case errors.As(err, &dns):
		return "could not resolve host " + host
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the connection to " + host + " closed before a complete answer"
	case errors.As(err, &op) && errors.As(err, &errno):
		// Errno texts name no address: "connection refused", "no route to host".
		if op.Op == "dial" {
			return "could not connect to " + host + ": " + errno.Error()
		}
		return "the connection to " + host + " failed: " + errno.Error()
	case errors.As(err, &op) && op.Op == "dial":
		return "could not connect to " + host
	case errors.As(err, new(tls.RecordHeaderError)), errors.As(err, new(*tls.CertificateVerificationError)):
		return "TLS with " + host + " failed (certificate or protocol)"
	}
	return "the request to " + host + " failed"
}

func (e *Error) Unwrap() error { return e.Err }

// Timeout reports whether the fetch failed because its time ran out.
func (e *Error) Timeout() bool { return e.Kind == KindTimeout }

// KindOf returns the Kind of a fetch error ("" for other errors).
func KindOf(err error) Kind {
	var fe *Error
	if errors.As(err, &fe) {
		return fe.Kind
	}
	return ""
}

// IsTimeout reports whether err is a fetch that ran out of time.
func IsTimeout(err error) bool { return KindOf(err) == KindTimeout }

// BlockedError is the dial-time refusal of an address.
type BlockedError struct {
	Addr   netip.Addr
	Reason string
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("address %s is %s and may not be fetched", e.Addr, e.Reason)
}

// describe is the refusal as shown for a URL naming host: the address
// itself only when the URL gave it (what a name resolves to inside the
// server's network is not the caller's to learn).
func (e *BlockedError) describe(host string) string {
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil && ip.Unmap() == e.Addr.Unmap() {
		return e.Error()
	}
	return fmt.Sprintf("host %s resolves to an address that is %s and may not be fetched", host, e.Reason)
}

// New returns a Fetcher bounded by opts.
func New(opts Options) *Fetcher {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxRedirects <= 0 {
		opts.MaxRedirects = DefaultMaxRedirects
	}
	if opts.UserAgent == "" {
		opts.UserAgent = "docsapi-fetch/1"
	}
	f := &Fetcher{opts: opts}
	dialer := &net.Dialer{Timeout: opts.Timeout, Control: f.control}
	dial := dialer.DialContext
	if len(opts.Trusted) > 0 {
		trusted := map[string]bool{}
		for _, hp := range opts.Trusted {
			trusted[hp] = true
		}
		plain := &net.Dialer{Timeout: opts.Timeout}
		dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			if trusted[addr] {
				return plain.DialContext(ctx, network, addr)
			}
			return dialer.DialContext(ctx, network, addr)
		}
	}
	transport := &http.Transport{
		// No proxy: with one, the dial-time check would see the proxy's
		// address instead of the target's.
		Proxy:                 nil,
		DialContext:           dial,
		TLSHandshakeTimeout:   opts.Timeout,
		ResponseHeaderTimeout: opts.Timeout,
		MaxIdleConns:          16,
		IdleConnTimeout:       30 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	f.client = &http.Client{Transport: transport, CheckRedirect: f.checkRedirect}
	return f
}

// control runs for every connection attempt, with the resolved address.
func (f *Fetcher) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &BlockedError{Reason: "not an IP address (" + address + ")"}
	}
	if f.exempt != nil && f.exempt(ap) {
		return nil
	}
	if reason := f.refusal(ap.Addr()); reason != "" {
		return &BlockedError{Addr: ap.Addr(), Reason: reason}
	}
	return nil
}

// Ranges not covered by netip's predicates.
var (
	sharedCGNAT = netip.MustParsePrefix("100.64.0.0/10")  // RFC 6598
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")      // RFC 791
	reserved4   = netip.MustParsePrefix("240.0.0.0/4")    // RFC 1112, incl. broadcast
	ietf4       = netip.MustParsePrefix("192.0.0.0/24")   // RFC 6890 protocol assignments
	benchmark4  = netip.MustParsePrefix("198.18.0.0/15")  // RFC 2544
	nat64       = netip.MustParsePrefix("64:ff9b::/96")   // RFC 6052: embeds an IPv4 address
	nat64Local  = netip.MustParsePrefix("64:ff9b:1::/48") // RFC 8215
	sixToFour   = netip.MustParsePrefix("2002::/16")      // RFC 3056: embeds an IPv4 address
	teredo      = netip.MustParsePrefix("2001::/32")      // RFC 4380
	docs6       = netip.MustParsePrefix("2001:db8::/32")  // RFC 3849
	discard6    = netip.MustParsePrefix("100::/64")       // RFC 6666
	siteLocal6  = netip.MustParsePrefix("fec0::/10")      // deprecated site-local
	ipv4Compat  = netip.MustParsePrefix("::/96")          // deprecated IPv4-compatible
)

// refusal says why addr may not be dialled ("" when it may).
func (f *Fetcher) refusal(addr netip.Addr) string {
	addr = addr.Unmap() // ::ffff:127.0.0.1 is 127.0.0.1
	switch {
	case !addr.IsValid():
		return "invalid"
	case addr.IsUnspecified(), thisNetwork.Contains(addr), ipv4Compat.Contains(addr) && !addr.IsLoopback():
		return "unspecified"
	case addr.IsMulticast():
		return "multicast"
	case addr.IsLinkLocalUnicast(), addr.IsLinkLocalMulticast():
		return "link-local"
	case reserved4.Contains(addr), ietf4.Contains(addr), benchmark4.Contains(addr),
		docs6.Contains(addr), discard6.Contains(addr), siteLocal6.Contains(addr):
		return "reserved"
	case nat64.Contains(addr), nat64Local.Contains(addr), sixToFour.Contains(addr), teredo.Contains(addr):
		// These embed an IPv4 address that could be private; docsapi does
		// not need them, so refuse rather than decode each scheme.
		return "a tunnelling address"
	}
	private := ""
	switch {
	case addr.IsLoopback():
		private = "loopback"
	case addr.IsPrivate(), sharedCGNAT.Contains(addr):
		private = "private"
	}
	if private != "" && !f.opts.AllowPrivate {
		return private + " (set --allow-private-fetch to allow it)"
	}
	return ""
}

func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > f.opts.MaxRedirects {
		return &Error{Kind: KindTooManyRedirects, URL: req.URL.String(), Err: fmt.Errorf("more than %d redirects", f.opts.MaxRedirects)}
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return &Error{Kind: KindInvalidURL, URL: req.URL.String(), Err: fmt.Errorf("redirect to a %q URL", req.URL.Scheme)}
	}
	// The dial-time check is the guard; this only fails a literal address
	// early, with a clearer message.
	if ip, err := netip.ParseAddr(req.URL.Hostname()); err == nil {
		if reason := f.refusal(ip); reason != "" {
			return &Error{Kind: KindBlocked, URL: req.URL.String(), Err: &BlockedError{Addr: ip, Reason: reason}}
		}
	}
	return nil
}

// Response is a successful (2xx) answer with its whole body.
type Response struct {
	URL         string // final URL, after redirects
	Status      int
	ContentType string
	Body        []byte
}

// Get fetches rawURL. Every error is an *Error.
func (f *Fetcher) Get(ctx context.Context, rawURL string) (*Response, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &Error{Kind: KindInvalidURL, URL: rawURL, Err: errors.New("not an absolute http or https URL")}
	}
	ctx, cancel := context.WithTimeoutCause(ctx, f.opts.Timeout, errTimedOut)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, &Error{Kind: KindInvalidURL, URL: rawURL, Err: err}
	}
	req.Header.Set("User-Agent", f.opts.UserAgent)
	res, err := f.client.Do(req)
	if err != nil {
		return nil, f.classify(ctx, rawURL, err)
	}
	defer res.Body.Close()
	final := res.Request.URL.String()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10)) // lets the connection be reused
		return nil, &Error{Kind: KindStatus, URL: final, Status: res.StatusCode}
	}
	if res.ContentLength > f.opts.MaxBytes {
		return nil, f.tooLarge(final)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, f.opts.MaxBytes+1))
	if err != nil {
		return nil, f.classify(ctx, final, err)
	}
	if int64(len(body)) > f.opts.MaxBytes {
		return nil, f.tooLarge(final)
	}
	return &Response{URL: final, Status: res.StatusCode, ContentType: res.Header.Get("Content-Type"), Body: body}, nil
}

var errTimedOut = errors.New("fetch time limit reached")

func (f *Fetcher) tooLarge(u string) error {
	return &Error{Kind: KindTooLarge, URL: u, Err: errors.New("response larger than " + strconv.FormatInt(f.opts.MaxBytes, 10) + " bytes")}
}

// classify turns a transport error into an *Error of the right kind.
func (f *Fetcher) classify(ctx context.Context, u string, err error) error {
	var fe *Error
	if errors.As(err, &fe) { // from checkRedirect
		return fe
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.URL != "" {
		u = ue.URL
	}
	var be *BlockedError
	switch {
	case errors.As(err, &be):
		return &Error{Kind: KindBlocked, URL: u, Err: be}
	case context.Cause(ctx) == errTimedOut:
		return &Error{Kind: KindTimeout, URL: u, Err: err}
	case ctx.Err() != nil:
		return &Error{Kind: KindCanceled, URL: u, Err: err}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &Error{Kind: KindTimeout, URL: u, Err: err}
	}
	return &Error{Kind: KindNetwork, URL: u, Err: err}
}

// Do sends req (any method) through the same guard: the dial-time address
// check, the redirect checks and the overall time bound. The response body is
// cut at MaxBytes. It makes a Fetcher usable wherever an http.Client's Do is
// expected (integration deliveries to development tunnels).
func (f *Fetcher) Do(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeoutCause(req.Context(), f.opts.Timeout, errTimedOut)
	res, err := f.client.Do(req.WithContext(ctx))
	if err != nil {
		err = f.classify(ctx, req.URL.String(), err) // worded without internal addresses, as Get's
		cancel()
		return nil, err
	}
	res.Body = &boundedBody{r: io.LimitReader(res.Body, f.opts.MaxBytes), c: res.Body, cancel: cancel}
	return res, nil
}

type boundedBody struct {
	r      io.Reader
	c      io.Closer
	cancel context.CancelFunc
}

func (b *boundedBody) Read(p []byte) (int, error) { return b.r.Read(p) }
func (b *boundedBody) Close() error {
	err := b.c.Close()
	b.cancel()
	return err
}
