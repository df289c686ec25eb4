package sso

import (
	"testing"
	"time"

	"github.com/crewjam/saml"
)

func attr(name, value string) saml.Attribute {
	return saml.Attribute{Name: name, Values: []saml.AttributeValue{{Value: value}}}
}

func TestIdentityOf(t *testing.T) {
	nameID := func(format, v string) *saml.Subject {
		return &saml.Subject{NameID: &saml.NameID{Format: format, Value: v}}
	}
	email := string(saml.EmailAddressNameIDFormat)
	cases := []struct {
		name  string
		a     saml.Assertion
		email string
		dn    string
	}{
		{"e-mail NameID wins over attributes", saml.Assertion{Subject: nameID(email, "Ann@Example.com"),
			AttributeStatements: []saml.AttributeStatement{{Attributes: []saml.Attribute{attr("mail", "other@example.com"), attr("displayName", "Ann A.")}}}},
			"ann@example.com", "Ann A."},
		{"mail attribute with a persistent NameID", saml.Assertion{Subject: nameID("urn:oasis:names:tc:SAML:2.0:nameid-format:persistent", "8f3a"),
			AttributeStatements: []saml.AttributeStatement{{Attributes: []saml.Attribute{attr("http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress", "bob@example.com"),
				attr("urn:oid:2.5.4.42", "Bob"), attr("urn:oid:2.5.4.4", "Builder")}}}},
			"bob@example.com", "Bob Builder"},
		{"an unspecified NameID that is an address", saml.Assertion{Subject: nameID("", "cy@example.com")}, "cy@example.com", "cy"},
		{"no address at all", saml.Assertion{Subject: nameID("", "Dee <dee@example.com>")}, "", ""},
	}
	for _, c := range cases {
		got := identityOf(&c.a)
		if got.Email != c.email || (c.email != "" && got.DisplayName != c.dn) {
			t.Errorf("%s: %+v", c.name, got)
		}
	}
}

func TestCredentialsRoundTrip(t *testing.T) {
	key, cert, err := NewCredentials(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseCredentials(key, cert)
	if err != nil || !c.Key.PublicKey.Equal(c.Certificate.PublicKey) {
		t.Fatalf("credentials: %v", err)
	}
	if _, err := ParseCertificates("", time.Now()); err == nil {
		t.Error("an empty certificate was accepted")
	}
}
