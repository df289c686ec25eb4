package sso

import (
	"crypto/x509"
	"encoding/base64"
	"errors"
	"testing"
	"time"
)

// FuzzSAMLResponse: any posted SAMLResponse (the raw XML is the input, sent
// base64 as the form carries it) is refused with ErrRefused, never a panic
// and never an identity: nothing the fuzzer makes is signed by the
// identity provider's key.
func FuzzSAMLResponse(f *testing.F) {
	key, cert, err := NewCredentials(time.Now())
	if err != nil {
		f.Fatal(err)
	}
	creds, err := ParseCredentials(key, cert)
	if err != nil {
		f.Fatal(err)
	}
	idpCert, _ := x509.ParseCertificate(cert)
	p := Provider{EntityID: "https://docs.example/sso/saml/p1/metadata", ACSURL: "https://docs.example/sso/saml/p1/acs",
		IdPEntityID: "https://idp.example/saml", IdPSSOURL: "https://idp.example/sso", IdPCertificates: []*x509.Certificate{idpCert}, Credentials: creds}
	f.Fuzz(func(t *testing.T, xml []byte) {
		posted := base64.StdEncoding.EncodeToString(xml)
		id, err := InResponseTo(posted)
		if err != nil && !errors.Is(err, ErrRefused) {
			t.Fatalf("InResponseTo: %v", err)
		}
		if err != nil {
			id = "id-1"
		}
		who, err := p.Verify(posted, id)
		if err == nil {
			t.Fatalf("an unsigned response signed in %+v", who)
		}
		if !errors.Is(err, ErrRefused) {
			t.Fatalf("Verify: %v", err)
		}
	})
}
