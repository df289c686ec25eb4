package rest_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestHTTPFuzz walks /v1/openapi.json and sends every route malformed
// bodies, wrong types for each declared field, huge, unicode and control
// strings, deep nesting, bad cursors and limits, odd path ids and junk
// headers, on a server on loopback (reaching no network). Bounded in
// requests and time. Every answer must be below 500, and every refusal the
// API's error body.
func TestHTTPFuzz(t *testing.T) {
	const maxRequests, maxTime = 12000, 20 * time.Second
	fx := newFuzzFixture(t)
	rng := rand.New(rand.NewPCG(17, 17)) // reproducible
	deadline := time.Now().Add(maxTime)
	sent := 0
	try := func(method, path string, body []byte, headers ...string) bool {
		if sent >= maxRequests || time.Now().After(deadline) {
			return false
		}
		sent++
		status, answer := fx.send(t, method, path, body, headers...)
		if status != 304 {
			checkAnswer(t, fmt.Sprintf("%s %s %.200q %q", method, path, body, headers), status, answer)
		}
		return true
	}
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	deepObject := strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000)
	malformed := []string{"", "{", "}", "null", "[]", `"text"`, "123", "true", `{"a":}`, "{\"a\":\"\xff\xfe\"}", deep, deepObject,
		`{"title":"` + strings.Repeat("x", 1<<20) + `"}`, "\x00\x01\x02", `{"__proto__":{"admin":true}}`, `{"title":1e400}`}
	strange := []any{nil, true, -1, 0, 1.5, 1e308, -1e308, 9007199254740993, "", strings.Repeat("é", 5000), "\u202e\u0000\ufeff💥",
		"../../etc/passwd", "<script>alert(1)</script>", "' OR 1=1 --", []any{}, []any{nil, 1, "x"}, map[string]any{}, map[string]any{"x": []any{map[string]any{}}}}
	junkHeaders := [][]string{
		{"Content-Type", "text/plain"}, {"Content-Type", "application/json; charset=koi8-r"},
		{"If-Match", `"nope"`}, {"If-Match", "*"}, {"If-None-Match", "W/\"\""}, {"Idempotency-Key", strings.Repeat("k", 300)},
		{"Idempotency-Key", "é"}, {"Accept", "text/html"}, {"Accept", "*/*;q=x"}, {"X-Visitor-Token", "a.b.c"},
		{"X-Request-Id", strings.Repeat("r", 500)}, {"Accept-Encoding", "gzip;q=bogus"},
	}
	badPages := []string{"!", "nope", "eyJ9", "eyJpZCI6MX0", "eyJzdGFydCI6dHJ1ZX0", strings.Repeat("A", 5000), "%00"}
	oddQuery := []string{"", "\x00", strings.Repeat("q", 10000), "\u202e💥", "true", "-1", "[]", "%", "a,b,,"}
	badLimits := []string{"-1", "0", "1001", "1e9", "abc", "99999999999999999999", " 5", "0x10"}

	// Each route in turn, so every route gets every kind of input even when
	// a slow machine (the race detector) reaches the time bound: malformed
	// bodies (routes taking one), a rotating share of the junk headers, of
	// the odd path ids and of the odd values for each declared body field,
	// bad paging, odd query values.
	badIDs := []string{"nope", "%2e%2e", strings.Repeat("z", 300), "é", "' OR 1=1", "0"}
	for i, o := range fx.ops {
		path := fx.path(o)
		if o.Body != nil {
			for _, b := range malformed {
				try(o.Method, path, []byte(b))
			}
			props, _ := fx.resolve(o.Body)["properties"].(map[string]any)
			for name := range props {
				for k := range 6 {
					raw, _ := json.Marshal(map[string]any{name: strange[(i*6+k)%len(strange)]})
					try(o.Method, path, raw)
				}
			}
		}
		for k := range 3 {
			try(o.Method, path, []byte("{}"), junkHeaders[(i*3+k)%len(junkHeaders)]...)
		}
		if o.Paged {
			for _, p := range badPages {
				try(o.Method, path+query("page", p, "limit", badLimits[rng.IntN(len(badLimits))]), nil)
			}
			for _, l := range badLimits {
				try(o.Method, path+query("limit", l), nil)
			}
		}
		for _, q := range o.Query {
			try(o.Method, path+query(q, oddQuery[rng.IntN(len(oddQuery))]), nil)
		}
		for _, p := range o.Params {
			saved := fx.ids[p]
			for k := range 2 {
				fx.ids[p] = badIDs[(i*2+k)%len(badIDs)]
				try(o.Method, fx.path(o), []byte("{}"))
			}
			fx.ids[p] = saved
		}
	}
	t.Logf("%d requests to %d operations in %v", sent, len(fx.ops), time.Since(deadline.Add(-maxTime)).Round(time.Millisecond))
}
