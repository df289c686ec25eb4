package importer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// HTTPFetcher is the interim guarded client imports use until the shared
// fetch package lands: loopback, private, link-local and unspecified
// addresses are refused after DNS resolution, at connect time (so every
// redirect is checked too), unless AllowPrivate; size, time and redirects
// are bounded.
type HTTPFetcher struct {
	AllowPrivate bool
	MaxBytes     int64         // default 20 MiB
	Timeout      time.Duration // per request; default 20s
	client       *http.Client
}

// ErrBlockedAddress is returned for URLs resolving to refused addresses.
var ErrBlockedAddress = errors.New("the URL resolves to a loopback, private or link-local address, which server-side fetches may not reach")

func (f *HTTPFetcher) init() {
	if f.client != nil {
		return
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second, Control: func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return err
		}
		if !f.AllowPrivate && blocked(ap.Addr()) {
			return ErrBlockedAddress
		}
		return nil
	}}
	f.client = &http.Client{
		Transport: &http.Transport{DialContext: dialer.DialContext, Proxy: nil, MaxIdleConnsPerHost: 4, ResponseHeaderTimeout: 15 * time.Second},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("too many redirects")
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return errors.New("redirect to a non-http URL")
			}
			return nil
		},
	}
}

func blocked(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsUnspecified() || a.IsMulticast() ||
		netip.MustParsePrefix("100.64.0.0/10").Contains(a)
}

// FetchError is a failed fetch, worded for the caller.
type FetchError struct{ Msg string }

func (e *FetchError) Error() string { return e.Msg }

func (f *HTTPFetcher) Fetch(ctx context.Context, rawURL string) (*Resource, error) {
	f.init()
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = 20 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil || (req.URL.Scheme != "http" && req.URL.Scheme != "https") {
		return nil, &FetchError{Msg: "url: must be an absolute http or https URL"}
	}
	req.Header.Set("User-Agent", "docsapi-import/1")
	res, err := f.client.Do(req)
	if err != nil {
		if errors.Is(err, ErrBlockedAddress) {
			return nil, &FetchError{Msg: "url: " + ErrBlockedAddress.Error()}
		}
		return nil, &FetchError{Msg: fmt.Sprintf("url: could not fetch %s: %v", rawURL, errors.Unwrap(err))}
	}
	defer res.Body.Close()
	if res.StatusCode >= 300 {
		return nil, &FetchError{Msg: fmt.Sprintf("url: fetching %s answered %s", rawURL, res.Status)}
	}
	max := f.MaxBytes
	if max <= 0 {
		max = 20 << 20
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, max+1))
	if err != nil {
		return nil, &FetchError{Msg: fmt.Sprintf("url: reading %s: %v", rawURL, err)}
	}
	if int64(len(body)) > max {
		return nil, &FetchError{Msg: fmt.Sprintf("url: the content is larger than %d bytes", max)}
	}
	return &Resource{URL: res.Request.URL.String(), ContentType: res.Header.Get("Content-Type"), Body: body}, nil
}
