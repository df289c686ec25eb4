// Package samltest is an identity provider for tests of docsapi's SAML
// logins: crewjam/saml plays it, reading docsapi's signed AuthnRequest from
// the start redirect and answering with a signed (and, as docsapi's
// metadata offers a certificate, encrypted) assertion, as Okta or Entra
// would post it through the browser.
package samltest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"encoding/xml"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/crewjam/saml"
	dsig "github.com/russellhaering/goxmldsig"
)

// IdP is a test identity provider.
type IdP struct {
	t testing.TB
	// SAML is the crewjam identity provider, for tests that look inside.
	SAML *saml.IdentityProvider
	// CertPEM is its signing certificate, as a provider's certificate field.
	CertPEM string
}

// New is an identity provider whose entity ID is entityID and whose single
// sign-on URL is entityID + "/sso" (never contacted: the tests play the
// browser).
func New(t testing.TB, entityID string) *IdP {
	t.Helper()
	key, cert, certPEM := RSACertificate(t)
	meta, err := url.Parse(entityID)
	if err != nil {
		t.Fatal(err)
	}
	ssoURL, _ := url.Parse(entityID + "/sso")
	ip := &IdP{t: t, CertPEM: certPEM}
	ip.SAML = &saml.IdentityProvider{
		Key: key, Signer: key, Certificate: cert, MetadataURL: *meta, SSOURL: *ssoURL,
		SignatureMethod: dsig.RSASHA256SignatureMethod, ServiceProviderProvider: ip,
	}
	return ip
}

// EntityID and SSOURL are the values of a provider's entityID and ssoURL.
func (ip *IdP) EntityID() string { return ip.SAML.MetadataURL.String() }
func (ip *IdP) SSOURL() string   { return ip.SAML.SSOURL.String() }

// GetServiceProvider reads docsapi's metadata, whose URL is its entity ID.
func (ip *IdP) GetServiceProvider(_ *http.Request, id string) (*saml.EntityDescriptor, error) {
	res, err := http.Get(id)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		return nil, os.ErrNotExist
	}
	var ed saml.EntityDescriptor
	raw, _ := io.ReadAll(res.Body)
	return &ed, xml.Unmarshal(raw, &ed)
}

// Answer plays the identity provider for the AuthnRequest in redirect (the
// URL docsapi's start sent the browser to): the user email signs in; alter
// may change the assertion before it is signed. It returns what the
// browser's auto-submitted form would post: where, the SAMLResponse and the
// RelayState given with the request.
func (ip *IdP) Answer(redirect *url.URL, email string, alter func(req *saml.IdpAuthnRequest)) (acsURL, samlResponse, relayState string) {
	t := ip.t
	t.Helper()
	req, err := saml.NewIdpAuthnRequest(ip.SAML, httptest.NewRequest("GET", redirect.String(), nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := req.Validate(); err != nil {
		t.Fatalf("the identity provider refuses docsapi's AuthnRequest: %v", err)
	}
	session := &saml.Session{ID: "s1", CreateTime: time.Now(), ExpireTime: time.Now().Add(time.Hour), Index: "1",
		NameID: email, NameIDFormat: string(saml.EmailAddressNameIDFormat), UserEmail: email, UserCommonName: "Jane Doe"}
	if err := (saml.DefaultAssertionMaker{}).MakeAssertion(req, session); err != nil {
		t.Fatal(err)
	}
	if alter != nil {
		alter(req)
	}
	form, err := req.PostBinding()
	if err != nil {
		t.Fatal(err)
	}
	return form.URL, form.SAMLResponse, form.RelayState
}

// Certificate makes a self-signed certificate valid from notBefore to
// notAfter for key, and its PEM.
func Certificate(t testing.TB, key any, pub any, notBefore, notAfter time.Time) (*x509.Certificate, string) {
	t.Helper()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: "test identity provider"},
		NotBefore:    notBefore, NotAfter: notAfter,
		KeyUsage: x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// RSACertificate is a currently valid RSA key and certificate.
func RSACertificate(t testing.TB) (*rsa.PrivateKey, *x509.Certificate, string) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	cert, p := Certificate(t, key, &key.PublicKey, time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour))
	return key, cert, p
}
