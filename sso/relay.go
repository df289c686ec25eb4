package sso

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strings"
	"time"
)

// A sign-in started from a browser page (the member app view) carries a
// RelayState through the identity provider: a signed, short-lived value
// naming the provider and a random binding that the starting browser also
// keeps in a cookie. The answer is taken only with a RelayState this service
// signed for that provider, not expired, and (checked by the caller) only
// in the browser holding the binding: a login CSRF (someone else's
// assertion posted from the victim's browser) finds no matching cookie.

// RelayPrefix marks a RelayState of a browser sign-in; other RelayStates
// (identity-provider-initiated logins) keep their former meaning.
const RelayPrefix = "app."

// BindingSize is the length of the random binding, in bytes.
const BindingSize = 16

// maxRelayState bounds a RelayState before it is decoded: SAML bindings
// (saml-bindings 3.4.3) allow 80 bytes.
const maxRelayState = 80

// SignRelayState makes the RelayState of a sign-in through providerID,
// bound to binding (BindingSize bytes), valid until expires.
func SignRelayState(key []byte, providerID string, binding []byte, expires time.Time) string {
	payload := make([]byte, 8, 8+len(binding))
	binary.BigEndian.PutUint64(payload, uint64(expires.Unix()))
	payload = append(payload, binding...)
	return RelayPrefix + base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(relayMAC(key, providerID, payload))
}

// OpenRelayState checks a RelayState made by SignRelayState for providerID
// and returns its binding.
func OpenRelayState(key []byte, providerID, relay string, now time.Time) ([]byte, error) {
	refused := errors.New("RelayState refused: not a sign-in this service started through this provider")
	if len(relay) > maxRelayState || !strings.HasPrefix(relay, RelayPrefix) {
		return nil, refused
	}
	p, m, ok := strings.Cut(strings.TrimPrefix(relay, RelayPrefix), ".")
	if !ok {
		return nil, refused
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(p)
	mac, err2 := base64.RawURLEncoding.DecodeString(m)
	if err1 != nil || err2 != nil || len(payload) != 8+BindingSize || !hmac.Equal(mac, relayMAC(key, providerID, payload)) {
		return nil, refused
	}
	if now.Unix() > int64(binary.BigEndian.Uint64(payload)) {
		return nil, errors.New("RelayState refused: the sign-in expired, start it again")
	}
	return payload[8:], nil
}

// relayMAC signs payload for one provider (truncated to 128 bits to fit
// the 80 bytes).
func relayMAC(key []byte, providerID string, payload []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte("docsapi sign-in relay state\x00"))
	h.Write([]byte(providerID))
	h.Write([]byte{0})
	h.Write(payload)
	return h.Sum(nil)[:16]
}
