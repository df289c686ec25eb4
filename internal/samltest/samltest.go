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
	"fmt"
	"html/template"
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
	ip.t.Helper()
	form, err := ip.answer(httptest.NewRequest("GET", redirect.String(), nil), email, alter)
	if err != nil {
		ip.t.Fatal(err)
	}
	return form.URL, form.SAMLResponse, form.RelayState
}

func (ip *IdP) answer(r *http.Request, email string, alter func(req *saml.IdpAuthnRequest)) (*saml.IdpAuthnRequestForm, error) {
	req, err := saml.NewIdpAuthnRequest(ip.SAML, r)
	if err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, fmt.Errorf("the identity provider refuses docsapi's AuthnRequest: %w", err)
	}
	session := &saml.Session{ID: "s1", CreateTime: time.Now(), ExpireTime: time.Now().Add(time.Hour), Index: "1",
		NameID: email, NameIDFormat: string(saml.EmailAddressNameIDFormat), UserEmail: email, UserCommonName: "Jane Doe"}
	if err := (saml.DefaultAssertionMaker{}).MakeAssertion(req, session); err != nil {
		return nil, err
	}
	if alter != nil {
		alter(req)
	}
	form, err := req.PostBinding()
	return &form, err
}

// autoPost is the identity provider's answer page: the HTTP-POST binding's
// form, submitted on load.
var autoPost = template.Must(template.New("post").Parse(`<!doctype html><html><head><title>Signing in</title></head><body>
<form method="post" action="{{.URL}}"><input type="hidden" name="SAMLResponse" value="{{.SAMLResponse}}">
<input type="hidden" name="RelayState" value="{{.RelayState}}"><noscript><button>Continue</button></noscript></form>
<script>document.forms[0].submit()</script></body></html>`))

// SignInPage serves the identity provider's single sign-on URL to a real
// browser: every AuthnRequest is answered at once for email (no password
// asked), by a page that posts the answer to docsapi's ACS.
func (ip *IdP) SignInPage(email string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		form, err := ip.answer(r, email, nil)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		autoPost.Execute(w, form)
	})
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
