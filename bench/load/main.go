// Command load is a small closed-loop HTTP load generator for docsapi's
// benchmarks: a fixed number of workers send the same request back to back
// for a fixed duration (or a fixed number of requests) and it reports
// throughput and latency percentiles. It only talks to loopback addresses.
//
//	load -url http://127.0.0.1:8080/v1/orgs/X -H 'Authorization: Bearer T' -c 16 -d 10s
//
// With -json it prints one JSON object, with -tsv one tab-separated line,
// instead of a line of text.
//
// -before-url sends an unmeasured request before each measured one (a write
// before a read, to time the read that follows a write); -body2 makes each
// worker alternate two bodies (a move back and forth, each one a change).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type headers []string

func (h *headers) String() string     { return strings.Join(*h, ", ") }
func (h *headers) Set(v string) error { *h = append(*h, v); return nil }

// Result is what one run measured.
type Result struct {
	URL        string  `json:"url"`
	Method     string  `json:"method"`
	Requests   int     `json:"requests"`
	Errors     int     `json:"errors"` // transport errors and statuses other than -expect
	Seconds    float64 `json:"seconds"`
	RPS        float64 `json:"rps"`
	P50ms      float64 `json:"p50_ms"`
	P99ms      float64 `json:"p99_ms"`
	MaxMs      float64 `json:"max_ms"`
	FirstError string  `json:"first_error,omitempty"`
}

func main() {
	var hs headers
	rawURL := flag.String("url", "", "target URL (loopback only)")
	method := flag.String("method", "GET", "HTTP method")
	body := flag.String("body", "", "request body (sent with Content-Type: application/json)")
	flag.Var(&hs, "H", "request header 'Name: value' (repeatable)")
	body2 := flag.String("body2", "", "second body: each worker alternates -body and -body2")
	var bhs headers
	beforeURL := flag.String("before-url", "", "unmeasured request sent before each measured one (loopback only)")
	beforeMethod := flag.String("before-method", "GET", "HTTP method of -before-url")
	beforeBody := flag.String("before-body", "", "body of -before-url")
	flag.Var(&bhs, "before-H", "header of -before-url (repeatable; default: the -H headers)")
	conc := flag.Int("c", 8, "concurrent workers (1..512)")
	dur := flag.Duration("d", 10*time.Second, "duration (ignored when -n is set; at most 10m)")
	n := flag.Int("n", 0, "total requests instead of a duration")
	warm := flag.Duration("warmup", time.Second, "unmeasured warm-up before the run")
	expect := flag.Int("expect", 0, "expected status (default: any 2xx)")
	asJSON := flag.Bool("json", false, "print the result as JSON")
	asTSV := flag.Bool("tsv", false, "print one tab-separated line: req/s, p50 ms, p99 ms, requests, errors")
	flag.Parse()

	if err := checkArgs(*rawURL, *conc, *dur, *n); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(2)
	}
	req := request{method: *method, url: *rawURL, body: []byte(*body), headers: hs, expect: *expect}
	if *body2 != "" {
		req.body2 = []byte(*body2)
	}
	if *beforeURL != "" {
		if err := checkArgs(*beforeURL, *conc, *dur, *n); err != nil {
			fmt.Fprintln(os.Stderr, "load: -before-url:", err)
			os.Exit(2)
		}
		if len(bhs) == 0 {
			bhs = hs
		}
		req.before = &request{method: *beforeMethod, url: *beforeURL, body: []byte(*beforeBody), headers: bhs}
	}
	client := &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			MaxIdleConns: *conc, MaxIdleConnsPerHost: *conc, IdleConnTimeout: time.Minute,
			DisableCompression: true, Proxy: nil,
		},
	}
	if *warm > 0 {
		run(client, req, *conc, *warm, 0)
	}
	res := run(client, req, *conc, *dur, *n)
	switch {
	case *asJSON:
		json.NewEncoder(os.Stdout).Encode(res)
	case *asTSV:
		fmt.Printf("%.0f\t%.2f\t%.2f\t%d\t%d\n", res.RPS, res.P50ms, res.P99ms, res.Requests, res.Errors)
	default:
		fmt.Printf("%s %s: %d requests in %.2fs, %.0f req/s, p50 %.2fms, p99 %.2fms, max %.2fms, errors %d\n",
			res.Method, res.URL, res.Requests, res.Seconds, res.RPS, res.P50ms, res.P99ms, res.MaxMs, res.Errors)
		if res.FirstError != "" {
			fmt.Println("  first error:", res.FirstError)
		}
	}
	if res.Requests == 0 || res.Errors > 0 {
		os.Exit(1)
	}
}

// checkArgs keeps the tool bounded and on this machine.
func checkArgs(raw string, conc int, dur time.Duration, n int) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("-url must be an http(s) URL (got %q)", raw)
	}
	host := u.Hostname()
	if host != "localhost" {
		ip := net.ParseIP(host)
		if ip == nil || !ip.IsLoopback() {
			return fmt.Errorf("-url must point at a loopback address (got %q)", host)
		}
	}
	if conc < 1 || conc > 512 {
		return errors.New("-c must be between 1 and 512")
	}
	if n < 0 || n > 10_000_000 {
		return errors.New("-n must be between 0 and 10000000")
	}
	if n == 0 && (dur <= 0 || dur > 10*time.Minute) {
		return errors.New("-d must be between 0 and 10m")
	}
	return nil
}

type request struct {
	method, url string
	body, body2 []byte // body2: alternate bodies (see -body2)
	headers     []string
	expect      int
	before      *request // unmeasured request sent before each one
}

// do sends the request; alt picks body2 when there is one.
func (r request) do(ctx context.Context, c *http.Client, alt bool) error {
	var body io.Reader
	b := r.body
	if alt && r.body2 != nil {
		b = r.body2
	}
	if len(b) > 0 {
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, r.url, body)
	if err != nil {
		return err
	}
	if len(b) > 0 {
		req.Header.Set("Content-Type", "application/json")
	}
	for _, h := range r.headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	// Drain so the connection is reused.
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if (r.expect != 0 && resp.StatusCode != r.expect) || (r.expect == 0 && resp.StatusCode/100 != 2) {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

// run drives conc workers until dur has passed or n requests were sent.
func run(c *http.Client, req request, conc int, dur time.Duration, n int) Result {
	ctx, cancel := context.Background(), func() {}
	if n == 0 {
		ctx, cancel = context.WithTimeout(ctx, dur)
	}
	defer cancel()
	var left atomic.Int64
	left.Store(int64(n))
	var mu sync.Mutex
	var all []time.Duration
	var errs int
	var firstErr string
	var wg sync.WaitGroup
	start := time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat := make([]time.Duration, 0, 4096)
			var werrs int
			var werr string
			for i := 0; ; i++ {
				if n > 0 && left.Add(-1) < 0 {
					break
				}
				var err error
				if req.before != nil {
					err = req.before.do(ctx, c, false)
				}
				t0 := time.Now()
				if err == nil {
					err = req.do(ctx, c, i%2 == 1)
				}
				if ctx.Err() != nil { // the deadline cut this request short: not counted
					break
				}
				lat = append(lat, time.Since(t0))
				if err != nil {
					werrs++
					if werr == "" {
						werr = err.Error()
					}
				}
			}
			mu.Lock()
			all = append(all, lat...)
			errs += werrs
			if firstErr == "" {
				firstErr = werr
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	slices.Sort(all)
	pct := func(p float64) float64 {
		if len(all) == 0 {
			return 0
		}
		i := int(p * float64(len(all)-1))
		return float64(all[i].Microseconds()) / 1000
	}
	res := Result{URL: req.url, Method: req.method, Requests: len(all), Errors: errs, Seconds: elapsed,
		P50ms: pct(0.50), P99ms: pct(0.99), FirstError: firstErr}
	if len(all) > 0 {
		res.MaxMs = float64(all[len(all)-1].Microseconds()) / 1000
		res.RPS = float64(len(all)) / elapsed
	}
	return res
}
