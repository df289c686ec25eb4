// Package delivery carries integration events to integration runtimes — in
// docsapi, the development tunnels set with PUT /integrations/{name}/dev.
// It signs each request, sends it through an injected Doer, and runs the
// persistent delivery queue (retries with exponential backoff) as a
// background worker. What to deliver and to whom is decided by the
// resolvers in graph/; this package only transports.
package delivery

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Doer sends outbound HTTP requests. Every request docsapi makes to an
// integration runtime (event deliveries, renders) goes through the Worker's
// Doer. The default is a plain http.Client with timeouts; the server wires
// the guarded outbound fetcher (package fetch: private and loopback
// addresses only when --allow-private-fetch is set) in its place.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// DefaultDoer is an http.Client with connection, TLS, header and overall
// timeouts that does not follow redirects (a tunnel answers itself).
func DefaultDoer() Doer {
	return &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   5 * time.Second,
			ResponseHeaderTimeout: 20 * time.Second,
			MaxIdleConnsPerHost:   32,
			IdleConnTimeout:       90 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Headers of a delivery. The signature covers the timestamp and the exact
// body bytes: HeaderSignature is "v1=" + hex(HMAC-SHA256(secret,
// timestamp + "." + body)), timestamp being HeaderTimestamp (unix seconds).
const (
	HeaderSignature   = "X-Docsapi-Signature"
	HeaderTimestamp   = "X-Docsapi-Timestamp"
	HeaderEventID     = "X-Docsapi-Event-Id"
	HeaderEventType   = "X-Docsapi-Event-Type"
	HeaderIntegration = "X-Docsapi-Integration"
	HeaderAttempt     = "X-Docsapi-Delivery-Attempt"
)

// Sign computes the signature header value of body sent at timestamp ts.
func Sign(secret string, ts int64, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(strconv.FormatInt(ts, 10)))
	mac.Write([]byte("."))
	mac.Write(body)
	return "v1=" + hex.EncodeToString(mac.Sum(nil))
}

// ErrBadSignature is returned by Verify for a request that was not signed
// with the secret, or whose timestamp is outside the tolerance.
var ErrBadSignature = errors.New("delivery: bad signature")

// Verify is what a receiver does: recompute the signature over the
// timestamp header and the raw body, compare in constant time, and refuse
// timestamps further than tolerance from now (replays). The header may
// carry several signatures separated by commas (a webhook whose secret was
// just rotated is signed with the new and the previous one): one matching
// is enough.
func Verify(secret string, h http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	ts, err := strconv.ParseInt(h.Get(HeaderTimestamp), 10, 64)
	if err != nil {
		return ErrBadSignature
	}
	if d := now.Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
		return ErrBadSignature
	}
	want := []byte(Sign(secret, ts, body))
	for _, sig := range strings.Split(h.Get(HeaderSignature), ",") {
		if hmac.Equal(want, []byte(strings.TrimSpace(sig))) {
			return nil
		}
	}
	return ErrBadSignature
}

// cspEvents are the events processed with the integration's content
// security policy: block fetches (ui_render) and script fetches.
var cspEvents = map[string]bool{"ui_render": true, "fetch_published_script": true}

// Request is one POST of an event to a runtime.
type Request struct {
	URL    string
	Secret string
	// PreviousSecret, when set, signs the request too: the signature
	// header then carries both, the current one first.
	PreviousSecret string
	UserAgent      string // "docsapi-integrations/1" when empty
	Integration    string
	EventID        string
	EventType      string
	Attempt        int
	Body           []byte
	CSP            string // Content-Security-Policy header value; sent with cspEvents only
}

// Response is a runtime's answer (body capped at MaxResponseBytes).
type Response struct {
	Status   int
	Header   http.Header
	Body     []byte
	Duration time.Duration
}

// MaxResponseBytes bounds how much of a runtime's answer is read.
const MaxResponseBytes = 1 << 20

// Send signs and POSTs req with the given timeout. A non-2xx answer is not
// an error; transport failures and timeouts are.
func Send(ctx context.Context, doer Doer, now time.Time, timeout time.Duration, req Request) (Response, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, req.URL, bytes.NewReader(req.Body))
	if err != nil {
		return Response{}, err
	}
	ts := now.Unix()
	hr.Header.Set("Content-Type", "application/json")
	ua := req.UserAgent
	if ua == "" {
		ua = "docsapi-integrations/1"
	}
	hr.Header.Set("User-Agent", ua)
	hr.Header.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	sig := Sign(req.Secret, ts, req.Body)
	if req.PreviousSecret != "" {
		sig += ", " + Sign(req.PreviousSecret, ts, req.Body)
	}
	hr.Header.Set(HeaderSignature, sig)
	hr.Header.Set(HeaderEventID, req.EventID)
	hr.Header.Set(HeaderEventType, req.EventType)
	if req.Integration != "" {
		hr.Header.Set(HeaderIntegration, req.Integration)
	}
	hr.Header.Set(HeaderAttempt, strconv.Itoa(max(req.Attempt, 1)))
	if req.CSP != "" && cspEvents[req.EventType] {
		hr.Header.Set("Content-Security-Policy", req.CSP)
	}
	start := time.Now()
	res, err := doer.Do(hr)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return Response{Duration: time.Since(start)}, fmt.Errorf("no answer within %s", timeout)
		}
		return Response{Duration: time.Since(start)}, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, MaxResponseBytes))
	out := Response{Status: res.StatusCode, Header: res.Header, Body: body, Duration: time.Since(start)}
	if err != nil {
		return out, fmt.Errorf("reading the answer: %w", err)
	}
	return out, nil
}

// snippet shortens a body for a trace line.
func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
