package graph

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"net/http"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/sso"
)

// Signing in to the member app view (urls.app) through an organization's
// SAML provider: the same login as /sso/saml/{id}/start, with a RelayState
// signed for the provider and bound to the starting browser (sso/relay.go),
// so the session it issues reaches only that browser.

// AppSAMLLogins lists the SAML providers a browser can sign in with to read
// a space in the app view: those of the space's organization, when the
// space is published in one of its sites. It is served before sign-in, to
// anyone: for a published space the organization is public (the published
// URL's resolution names it), so the list says no more than GET
// /v1/orgs/{id}/sso; for any other space id (unpublished, or unknown) it is
// empty, so an id of an internal space learned from a link does not tell
// who the organization's identity providers are.
func (r *Resolver) AppSAMLLogins(ctx context.Context, spaceID string) []*model.SSOProviderLogin {
	sp, err := r.Store.Space(ctx, spaceID)
	if err != nil {
		return nil
	}
	if _, err := r.Store.PublishedSiteSpaceOf(ctx, sp.OrganizationID, spaceID); err != nil {
		return nil
	}
	logins, err := r.Store.SAMLLogins(ctx, sp.OrganizationID)
	if err != nil {
		return nil
	}
	out := make([]*model.SSOProviderLogin, 0, len(logins))
	for _, l := range logins {
		out = append(out, &model.SSOProviderLogin{ID: l.ID, Label: l.Label, StartURL: r.samlService(l.ID).StartURL})
	}
	return out
}

// relayKey is the key signing RelayStates, derived from the service
// provider's private key so that every process sharing the database agrees.
func (r *Resolver) relayKey(ctx context.Context) ([]byte, error) {
	creds, err := r.spCredentials(ctx)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(append([]byte("docsapi relay state key\x00"), x509.MarshalPKCS1PrivateKey(creds.Key)...))
	return sum[:], nil
}

// StartAppSAMLLogin begins an app-view login through providerID for the
// browser holding binding (hex, sso.BindingSize bytes) and returns the
// identity provider URL to send it to.
func (r *Resolver) StartAppSAMLLogin(ctx context.Context, providerID, binding string) (string, error) {
	b, err := hex.DecodeString(binding)
	if err != nil || len(b) != sso.BindingSize {
		return "", apierr.Invalid("binding", "must be %d random bytes in hex", sso.BindingSize)
	}
	p, sp, err := r.samlLoginProvider(ctx, providerID)
	if err != nil {
		return "", err
	}
	key, err := r.relayKey(ctx)
	if err != nil {
		return "", err
	}
	relay := sso.SignRelayState(key, p.ID, b, r.Now().Add(samlRequestTTL))
	id, redirect, err := sp.AuthnRequestRelaying(relay)
	if err != nil {
		return "", err
	}
	if err := r.addSAMLRequest(ctx, p.ID, id); err != nil {
		return "", err
	}
	return redirect, nil
}

// CompleteAppSAMLLogin takes an identity provider's answer to a login
// started by StartAppSAMLLogin: the RelayState is checked first (a forged,
// foreign or expired one is refused before the assertion is consumed), then
// the assertion as CompleteSAMLLogin does. It returns the session and the
// binding the browser must hold for the session to be given to it.
func (r *Resolver) CompleteAppSAMLLogin(ctx context.Context, providerID, samlResponse, relayState string) (*model.SAMLSession, string, error) {
	key, err := r.relayKey(ctx)
	if err != nil {
		return nil, "", err
	}
	b, err := sso.OpenRelayState(key, providerID, relayState, r.Now())
	if err != nil {
		return nil, "", apierr.New(http.StatusUnauthorized, "%s", err.Error())
	}
	s, err := r.CompleteSAMLLogin(ctx, providerID, samlResponse)
	if err != nil {
		return nil, "", err
	}
	return s, hex.EncodeToString(b), nil
}
