// Package sso is docsapi's SAML 2.0 service provider, a thin layer over
// github.com/crewjam/saml (which does all XML and signature work): it builds
// signed AuthnRequests, publishes the service provider's metadata and
// verifies identity providers' answers. It knows nothing of organizations or
// members; the resolvers in graph/ decide what a verified login does.
package sso

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"encoding/xml"
	"errors"
	"fmt"
	"math/big"
	"net/mail"
	"net/url"
	"strings"
	"time"

	"github.com/crewjam/saml"
	dsig "github.com/russellhaering/goxmldsig"
)

// KeyAlgorithm names the service provider's key pair where it is stored
// (storage.Keys): an RSA key, PKCS #8, with a self-signed certificate in
// place of the public key.
const KeyAlgorithm = "SAML-RSA-SHA256"

// Credentials are the service provider's key and certificate: it signs its
// AuthnRequests with the key, and identity providers may encrypt assertions
// to the certificate.
type Credentials struct {
	Key         *rsa.PrivateKey
	Certificate *x509.Certificate
}

// NewCredentials makes a fresh RSA key and a self-signed certificate for
// it, valid for twenty years, as DER (PKCS #8 key, X.509 certificate).
func NewCredentials(now time.Time) (keyDER, certDER []byte, err error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "docsapi SAML service provider"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.AddDate(20, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
	}
	certDER, err = x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err = x509.MarshalPKCS8PrivateKey(key)
	return keyDER, certDER, err
}

// ParseCredentials reads what NewCredentials made.
func ParseCredentials(keyDER, certDER []byte) (Credentials, error) {
	k, err := x509.ParsePKCS8PrivateKey(keyDER)
	if err != nil {
		return Credentials{}, fmt.Errorf("service provider key: %w", err)
	}
	key, ok := k.(*rsa.PrivateKey)
	if !ok {
		return Credentials{}, fmt.Errorf("service provider key is %T, not RSA", k)
	}
	cert, err := x509.ParseCertificate(certDER)
	if err != nil {
		return Credentials{}, fmt.Errorf("service provider certificate: %w", err)
	}
	return Credentials{Key: key, Certificate: cert}, nil
}

// ParseCertificates reads an identity provider's signing certificates: one
// or more PEM "CERTIFICATE" blocks (several while it rotates keys) and
// nothing else. Each must be X.509 with an RSA or ECDSA key and valid at now.
// The error says what is wrong, for the caller to show.
func ParseCertificates(text string, now time.Time) ([]*x509.Certificate, error) {
	rest := []byte(strings.TrimSpace(text))
	var certs []*x509.Certificate
	for len(rest) > 0 {
		block, after := pem.Decode(rest)
		if block == nil {
			if len(certs) == 0 {
				return nil, errors.New("must be a PEM-encoded X.509 certificate (-----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----)")
			}
			return nil, errors.New("has text after its last PEM block")
		}
		if block.Type != "CERTIFICATE" {
			return nil, fmt.Errorf("holds a PEM block of type %q; only CERTIFICATE blocks are accepted", block.Type)
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("is not a valid X.509 certificate: %v", err)
		}
		switch cert.PublicKeyAlgorithm {
		case x509.RSA, x509.ECDSA:
		default:
			return nil, fmt.Errorf("has a %s key; SAML signatures are checked with RSA or ECDSA keys", cert.PublicKeyAlgorithm)
		}
		if now.Before(cert.NotBefore) {
			return nil, fmt.Errorf("is not valid before %s", cert.NotBefore.UTC().Format(time.RFC3339))
		}
		if now.After(cert.NotAfter) {
			return nil, fmt.Errorf("expired on %s", cert.NotAfter.UTC().Format(time.RFC3339))
		}
		certs = append(certs, cert)
		rest = bytes.TrimSpace(after)
	}
	if len(certs) == 0 {
		return nil, errors.New("must be a PEM-encoded X.509 certificate")
	}
	return certs, nil
}

// Provider is one identity provider as docsapi's service provider talks to
// it: our URLs for it and what we know of it.
type Provider struct {
	// EntityID is our entity ID for this provider (the URL of our metadata);
	// ACSURL is where the provider posts its answers.
	EntityID string
	ACSURL   string
	// IdPEntityID, IdPSSOURL and IdPCertificates describe the identity
	// provider: who signs the answers, where requests go, which keys sign.
	IdPEntityID     string
	IdPSSOURL       string
	IdPCertificates []*x509.Certificate
	Credentials     Credentials
	// Now is the clock requests, metadata and answers are made and checked
	// against (the server's injectable clock); nil is the real time.
	Now func() time.Time
}

func (p Provider) serviceProvider() (*saml.ServiceProvider, error) {
	acs, err := url.Parse(p.ACSURL)
	if err != nil {
		return nil, err
	}
	meta, err := url.Parse(p.EntityID)
	if err != nil {
		return nil, err
	}
	certs := make([]saml.X509Certificate, len(p.IdPCertificates))
	for i, c := range p.IdPCertificates {
		certs[i] = saml.X509Certificate{Data: base64.StdEncoding.EncodeToString(c.Raw)}
	}
	idp := &saml.EntityDescriptor{
		EntityID: p.IdPEntityID,
		IDPSSODescriptors: []saml.IDPSSODescriptor{{
			SSODescriptor: saml.SSODescriptor{RoleDescriptor: saml.RoleDescriptor{
				ProtocolSupportEnumeration: "urn:oasis:names:tc:SAML:2.0:protocol",
				KeyDescriptors:             []saml.KeyDescriptor{{Use: "signing", KeyInfo: saml.KeyInfo{X509Data: saml.X509Data{X509Certificates: certs}}}},
			}},
			SingleSignOnServices: []saml.Endpoint{{Binding: saml.HTTPRedirectBinding, Location: p.IdPSSOURL}},
		}},
	}
	return &saml.ServiceProvider{
		EntityID:          p.EntityID,
		Key:               p.Credentials.Key,
		Certificate:       p.Credentials.Certificate,
		MetadataURL:       *meta,
		AcsURL:            *acs,
		IDPMetadata:       idp,
		AuthnNameIDFormat: saml.EmailAddressNameIDFormat,
		SignatureMethod:   dsig.RSASHA256SignatureMethod,
	}, nil
}

// AuthnRequest makes a signed AuthnRequest (HTTP-Redirect binding) and
// returns its ID, to be remembered until answered, and the identity
// provider URL to send the browser to.
func (p Provider) AuthnRequest() (id, redirect string, err error) {
	return p.AuthnRequestRelaying("")
}

// AuthnRequestRelaying is AuthnRequest with a RelayState (signed with the
// request) that the identity provider posts back beside its answer.
func (p Provider) AuthnRequestRelaying(relayState string) (id, redirect string, err error) {
	sp, err := p.serviceProvider()
	if err != nil {
		return "", "", err
	}
	err = atClock(p.Now, func() error {
		req, err := sp.MakeAuthenticationRequest(p.IdPSSOURL, saml.HTTPRedirectBinding, saml.HTTPPostBinding)
		if err != nil {
			return err
		}
		u, err := req.Redirect(relayState, sp)
		if err != nil {
			return err
		}
		id, redirect = req.ID, u.String()
		return nil
	})
	return id, redirect, err
}

// Metadata is our service provider's metadata for this identity provider
// (entity ID, ACS endpoint, certificate), as identity providers import it.
func (p Provider) Metadata() ([]byte, error) {
	sp, err := p.serviceProvider()
	if err != nil {
		return nil, err
	}
	var md *saml.EntityDescriptor
	atClock(p.Now, func() error { md = sp.Metadata(); return nil })
	// Answers come by HTTP-POST only: the artifact binding would make the
	// server fetch from the identity provider.
	for i := range md.SPSSODescriptors {
		var post []saml.IndexedEndpoint
		for _, e := range md.SPSSODescriptors[i].AssertionConsumerServices {
			if e.Binding == saml.HTTPPostBinding {
				post = append(post, e)
			}
		}
		md.SPSSODescriptors[i].AssertionConsumerServices = post
	}
	out, err := xml.MarshalIndent(md, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), out...), nil
}

// Identity is who a verified answer says signed in.
type Identity struct {
	Email       string
	DisplayName string
}

// ErrRefused wraps every reason an answer is not accepted.
var ErrRefused = errors.New("SAML response refused")

// InResponseTo reads, without verifying anything, which request a posted
// SAMLResponse claims to answer, so that the caller can look that request
// up; Verify then checks the claim under the signature.
func InResponseTo(samlResponse string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(samlResponse)
	if err != nil {
		return "", fmt.Errorf("%w: SAMLResponse is not base64", ErrRefused)
	}
	var head struct {
		XMLName      xml.Name
		InResponseTo string `xml:"InResponseTo,attr"`
	}
	if err := xml.Unmarshal(raw, &head); err != nil {
		return "", fmt.Errorf("%w: SAMLResponse is not XML", ErrRefused)
	}
	if head.XMLName.Local != "Response" {
		return "", fmt.Errorf("%w: SAMLResponse holds a %s, not a Response", ErrRefused, head.XMLName.Local)
	}
	if head.InResponseTo == "" {
		return "", fmt.Errorf("%w: unsolicited responses are not accepted (no InResponseTo)", ErrRefused)
	}
	return head.InResponseTo, nil
}

// Verify checks a posted SAMLResponse: the identity provider's signature
// (against its configured certificates), the issuer, the destination and
// recipient (our ACS URL), the audience (our entity ID), the time window,
// and that it answers requestID. It returns the asserted identity.
func (p Provider) Verify(samlResponse, requestID string) (Identity, error) {
	sp, err := p.serviceProvider()
	if err != nil {
		return Identity{}, err
	}
	raw, err := base64.StdEncoding.DecodeString(samlResponse)
	if err != nil {
		return Identity{}, fmt.Errorf("%w: SAMLResponse is not base64", ErrRefused)
	}
	acs, _ := url.Parse(p.ACSURL)
	var assertion *saml.Assertion
	err = atClock(p.Now, func() (err error) {
		assertion, err = sp.ParseXMLResponse(raw, []string{requestID}, *acs)
		return err
	})
	if err != nil {
		var invalid *saml.InvalidResponseError
		if errors.As(err, &invalid) && invalid.PrivateErr != nil {
			err = invalid.PrivateErr
		}
		return Identity{}, fmt.Errorf("%w: %v", ErrRefused, err)
	}
	id := identityOf(assertion)
	if id.Email == "" {
		return Identity{}, fmt.Errorf("%w: the assertion carries no e-mail address (NameID or a mail/email attribute)", ErrRefused)
	}
	return id, nil
}

// Attribute names identity providers use for e-mail addresses and names.
var (
	emailAttributes = []string{"urn:oid:0.9.2342.19200300.100.1.3", "mail", "email", "emailAddress",
		"http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress"}
	nameAttributes = []string{"urn:oid:2.16.840.1.113730.3.1.241", "displayName", "urn:oid:2.5.4.3", "cn", "name",
		"http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name"}
	givenNameAttributes = []string{"urn:oid:2.5.4.42", "givenName", "firstName",
		"http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname"}
	surnameAttributes = []string{"urn:oid:2.5.4.4", "sn", "surname", "lastName",
		"http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname"}
)

// maxNameLength bounds a display name taken from an assertion.
const maxNameLength = 255

func identityOf(a *saml.Assertion) Identity {
	attrs := map[string]string{}
	for _, st := range a.AttributeStatements {
		for _, at := range st.Attributes {
			if len(at.Values) == 0 || strings.TrimSpace(at.Values[0].Value) == "" {
				continue
			}
			v := strings.TrimSpace(at.Values[0].Value)
			for _, k := range []string{at.Name, at.FriendlyName} {
				if _, seen := attrs[k]; k != "" && !seen {
					attrs[k] = v
				}
			}
		}
	}
	first := func(names []string) string {
		for _, n := range names {
			if v := attrs[n]; v != "" {
				return v
			}
		}
		return ""
	}
	var id Identity
	if a.Subject != nil && a.Subject.NameID != nil && a.Subject.NameID.Format == string(saml.EmailAddressNameIDFormat) {
		id.Email = emailAddress(a.Subject.NameID.Value)
	}
	if id.Email == "" {
		id.Email = emailAddress(first(emailAttributes))
	}
	if id.Email == "" && a.Subject != nil && a.Subject.NameID != nil {
		id.Email = emailAddress(a.Subject.NameID.Value)
	}
	id.DisplayName = first(nameAttributes)
	if id.DisplayName == "" {
		id.DisplayName = strings.TrimSpace(first(givenNameAttributes) + " " + first(surnameAttributes))
	}
	if id.DisplayName == "" {
		id.DisplayName, _, _ = strings.Cut(id.Email, "@")
	}
	if r := []rune(id.DisplayName); len(r) > maxNameLength {
		id.DisplayName = string(r[:maxNameLength])
	}
	return id
}

// emailAddress returns v, lower case, when it is a bare e-mail address.
func emailAddress(v string) string {
	v = strings.TrimSpace(v)
	addr, err := mail.ParseAddress(v)
	if err != nil || addr.Address != v || !strings.Contains(v, "@") {
		return ""
	}
	return strings.ToLower(v)
}
