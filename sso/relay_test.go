package sso

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestRelayState(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	now := time.Unix(1_800_000_000, 0)
	binding := bytes.Repeat([]byte{7}, BindingSize)
	relay := SignRelayState(key, "prov1", binding, now.Add(10*time.Minute))
	if len(relay) > maxRelayState {
		t.Fatalf("RelayState of %d bytes exceeds SAML's 80", len(relay))
	}
	if got, err := OpenRelayState(key, "prov1", relay, now); err != nil || !bytes.Equal(got, binding) {
		t.Fatalf("open: %x %v", got, err)
	}
	cases := map[string]struct {
		key      []byte
		provider string
		relay    string
		at       time.Time
		says     string
	}{
		"another provider": {key, "prov2", relay, now, "refused"},
		"another key":      {[]byte("other"), "prov1", relay, now, "refused"},
		"expired":          {key, "prov1", relay, now.Add(11 * time.Minute), "expired"},
		"tampered":         {key, "prov1", relay[:6] + string(relay[6]^1) + relay[7:], now, "refused"},
		"too long":         {key, "prov1", relay + strings.Repeat("A", 80), now, "refused"},
		"foreign":          {key, "prov1", "https://idp.example/landing", now, "refused"},
	}
	for name, c := range cases {
		if _, err := OpenRelayState(c.key, c.provider, c.relay, c.at); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func FuzzOpenRelayState(f *testing.F) {
	key := []byte("k")
	f.Add(SignRelayState(key, "p", make([]byte, BindingSize), time.Unix(2e9, 0)))
	f.Add("app.")
	f.Add("app.x.y")
	f.Fuzz(func(t *testing.T, relay string) {
		b, err := OpenRelayState(key, "p", relay, time.Unix(1e9, 0))
		if err == nil && len(b) != BindingSize {
			t.Fatalf("binding of %d bytes", len(b))
		}
	})
}
