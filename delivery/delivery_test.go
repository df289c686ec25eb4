package delivery

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"
)

func TestSignAndVerify(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"eventId":"e1","type":"installation_setup"}`)
	h := http.Header{}
	h.Set(HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	h.Set(HeaderSignature, Sign("whsec_k", now.Unix(), body))
	if err := Verify("whsec_k", h, body, now.Add(time.Minute), 5*time.Minute); err != nil {
		t.Fatalf("valid signature refused: %v", err)
	}
	for name, check := range map[string]func() error{
		"other secret":  func() error { return Verify("whsec_other", h, body, now, 5*time.Minute) },
		"changed body":  func() error { return Verify("whsec_k", h, append(body, ' '), now, 5*time.Minute) },
		"replayed late": func() error { return Verify("whsec_k", h, body, now.Add(10*time.Minute), 5*time.Minute) },
		"no timestamp": func() error {
			return Verify("whsec_k", http.Header{HeaderSignature: h[HeaderSignature]}, body, now, 5*time.Minute)
		},
	} {
		if check() != ErrBadSignature {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestCSPHeader(t *testing.T) {
	for in, want := range map[string]string{
		``:                     "",
		`"default-src 'self'"`: "default-src 'self'",
		`{"script-src":"'self'","img-src":"* data:"}`: "img-src * data:; script-src 'self'",
	} {
		if got := CSPHeader(json.RawMessage(in)); got != want {
			t.Errorf("CSPHeader(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestBackoff(t *testing.T) {
	w := &Worker{Policy: DefaultPolicy}
	for attempt, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 4: 8 * time.Second, 7: time.Minute, 70: time.Minute} {
		if got := w.backoff(attempt); got != want {
			t.Errorf("backoff(%d) = %s, want %s", attempt, got, want)
		}
	}
}
