package graph

import (
	"context"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/graph/model"
	"docsapi/sso"
	"docsapi/storage"
)

// Single sign-on: the rules of SAML identity providers and of the logins
// that go through them. The protocol itself (XML, signatures) is in sso/.

const (
	// samlRequestTTL is how long a started login may take at the identity
	// provider before its answer is refused.
	samlRequestTTL = 10 * time.Minute
	// maxSAMLRequests bounds the outstanding logins of one provider (starting
	// a login needs no token).
	maxSAMLRequests = 10_000
	// SessionTokenTTL is the lifetime of the API token a SAML login issues.
	SessionTokenTTL = 12 * time.Hour
)

// samlServiceBase is the URL under which docsapi serves one provider's login endpoints,
// outside /v1: browsers reach them without a token.
func (r *Resolver) samlServiceBase(providerID string) string {
	return r.Config.PublicURL + "/sso/saml/" + providerID
}

func (r *Resolver) samlService(providerID string) model.SAMLServiceProvider {
	base := r.samlServiceBase(providerID)
	return model.SAMLServiceProvider{AcsURL: base + "/acs", StartURL: base + "/start", EntityID: base + "/metadata"}
}

// unsetSSOURL is ssoURL while not configured: 0.130.0 requires a URI there,
// and about:blank is the URI that names nothing.
const unsetSSOURL = "about:blank"

func (r *Resolver) samlProviderModel(p storage.SAMLProvider) *model.SAMLProvider {
	sso := p.SSOURL
	if sso == "" {
		sso = unsetSSOURL
	}
	m := &model.SAMLProvider{
		Object: "saml-provider", ID: p.ID, Label: p.Label, SsoURL: sso, EntityID: p.EntityID,
		Certificate: p.Certificate, DefaultRole: roleModel(p.DefaultRole), CreatedAt: model.Time(p.CreatedAt),
		Status: "pending", Service: r.samlService(p.ID),
		Urls: model.SAMLProviderURLs{Location: r.Config.PublicURL + "/v1/orgs/" + p.OrganizationID + "/saml/" + p.ID},
	}
	if p.Configured() {
		m.Status = "active"
	}
	if p.DefaultTeam != nil {
		m.DefaultTeam = r.teamModel(*p.DefaultTeam, true) // only admins see providers
	}
	return m
}

// certificatePEM accepts a provider certificate as PEM (returned as given)
// or as bare base64 DER, the content of an X509Certificate element of
// identity-provider metadata (line breaks allowed), which it stores as one
// PEM CERTIFICATE block so every later reader parses one format.
func certificatePEM(text string) (string, error) {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "-----BEGIN") {
		return text, nil
	}
	der, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(t), ""))
	if err != nil || len(der) == 0 {
		return "", apierr.Invalid("certificate", "must be a PEM-encoded X.509 certificate (-----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----) or its base64 DER, as identity-provider metadata carries it")
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), nil
}

// samlFields validates a create or update body into the fields to store.
func (r *Resolver) samlFields(ctx context.Context, orgID string, in model.UpdateSAMLProviderInput) (storage.SAMLProviderFields, error) {
	f := storage.SAMLProviderFields{Label: in.Label, EntityID: in.EntityID, SSOURL: in.SsoURL, Certificate: in.Certificate}
	err := firstErr(
		checkLenPtr("label", in.Label, 1, 30),
		checkLenPtr("entityID", in.EntityID, 0, 1024),
		checkLenPtr("certificate", in.Certificate, 0, 10000),
	)
	if err != nil {
		return f, err
	}
	if in.SsoURL != nil && *in.SsoURL != "" {
		if err := checkURL("ssoURL", *in.SsoURL, 2048); err != nil {
			return f, err
		}
	}
	if in.Certificate != nil && *in.Certificate != "" {
		text, err := certificatePEM(*in.Certificate)
		if err != nil {
			return f, err
		}
		if _, err := sso.ParseCertificates(text, r.Now()); err != nil {
			return f, apierr.Invalid("certificate", "%s", err.Error())
		}
		f.Certificate = &text
	}
	if team, ok := in.DefaultTeam.ValueOK(); ok {
		if team != nil && *team == "" {
			team = nil
		}
		if team != nil {
			if _, err := r.Store.Team(ctx, orgID, *team); errors.Is(err, storage.ErrNotFound) {
				return f, apierr.Invalid("defaultTeam", "%q is not a team of this organization", *team)
			} else if err != nil {
				return f, err
			}
		}
		f.DefaultTeamID = &team
	}
	if role, ok := in.DefaultRole.ValueOK(); ok {
		if role != nil {
			if err := checkEnum("defaultRole", *role, model.Roles.List()); err != nil {
				return f, err
			}
		}
		rs := roleString(role)
		f.DefaultRole = &rs
	}
	return f, nil
}

// samlProvider reads a provider of an organization the caller administers.
func (r *Resolver) samlProvider(ctx context.Context, orgID, id string) (*model.SAMLProvider, error) {
	p, err := r.Store.SAMLProvider(ctx, orgID, id)
	if err != nil {
		return nil, notFoundAs(err, "SAML provider")
	}
	return r.samlProviderModel(p), nil
}

// ssoRefusal applies an organization's SSO enforcement to a caller who is a
// member. With sso on, a member reaches the organization when any holds:
//   - the token was issued by a SAML login to this organization;
//   - the membership is an SSO member (signed in through SSO at least once,
//     or marked by an admin, or invited with sso): the identity provider
//     vouches for them, so their own API tokens keep working;
//   - they are an admin, so that an admin can always repair the identity
//     provider's settings or turn enforcement off (the way back in).
//
// Everyone else is refused with 403.
func ssoRefusal(c auth.Caller, org storage.Organization, m storage.Membership) error {
	if !org.SSO || m.SSO || atLeast(m.Role, "admin") || isSSOSession(c, org.ID) {
		return nil
	}
	return apierr.Forbidden("the organization requires single sign-on: sign in through one of its identity providers (GET /v1/orgs/%s/sso)", org.ID)
}

// isSSOSession tells whether the caller's token came from a SAML login to orgID.
func isSSOSession(c auth.Caller, orgID string) bool {
	return c.Kind == "session" && c.OrganizationID == orgID
}

// samlCredentials is the service provider's key pair, made on first use and
// kept in the database so that every process sharing it signs alike.
type samlCredentials struct {
	mu    sync.Mutex
	creds *sso.Credentials
}

func (r *Resolver) spCredentials(ctx context.Context) (sso.Credentials, error) {
	r.samlCreds.mu.Lock()
	defer r.samlCreds.mu.Unlock()
	if r.samlCreds.creds != nil {
		return *r.samlCreds.creds, nil
	}
	k, err := r.Store.SigningKey(ctx, sso.KeyAlgorithm, func() ([]byte, []byte, error) { return sso.NewCredentials(r.Now()) })
	if err != nil {
		return sso.Credentials{}, err
	}
	c, err := sso.ParseCredentials(k.PrivateKey, k.PublicKey)
	if err != nil {
		return c, err
	}
	r.samlCreds.creds = &c
	return c, nil
}

// samlLoginProvider loads a provider for the login endpoints: it must exist
// (404) and be fully configured (409).
func (r *Resolver) samlLoginProvider(ctx context.Context, providerID string) (storage.SAMLProvider, sso.Provider, error) {
	p, err := r.Store.SAMLProviderByID(ctx, providerID)
	if err != nil {
		return p, sso.Provider{}, notFoundAs(err, "SAML provider")
	}
	if !p.Configured() {
		return p, sso.Provider{}, apierr.Conflict("the SAML provider is not configured yet (entityID, ssoURL and certificate are needed)")
	}
	certs, err := sso.ParseCertificates(p.Certificate, r.Now())
	if err != nil {
		return p, sso.Provider{}, apierr.Conflict("the SAML provider's certificate %s", err.Error())
	}
	creds, err := r.spCredentials(ctx)
	if err != nil {
		return p, sso.Provider{}, err
	}
	svc := r.samlService(p.ID)
	return p, sso.Provider{
		EntityID: svc.EntityID, ACSURL: svc.AcsURL,
		IdPEntityID: p.EntityID, IdPSSOURL: p.SSOURL, IdPCertificates: certs, Credentials: creds, Now: r.Now,
	}, nil
}

// SAMLMetadata is the service provider metadata (XML) of one provider, to
// import into the identity provider. Served without a token.
func (r *Resolver) SAMLMetadata(ctx context.Context, providerID string) ([]byte, error) {
	p, err := r.Store.SAMLProviderByID(ctx, providerID)
	if err != nil {
		return nil, notFoundAs(err, "SAML provider")
	}
	creds, err := r.spCredentials(ctx)
	if err != nil {
		return nil, err
	}
	svc := r.samlService(p.ID)
	return sso.Provider{EntityID: svc.EntityID, ACSURL: svc.AcsURL, Credentials: creds, Now: r.Now}.Metadata()
}

// StartSAMLLogin begins a login through a provider: it records a signed
// AuthnRequest as outstanding and returns the identity provider URL to send
// the browser to. Needs no token.
func (r *Resolver) StartSAMLLogin(ctx context.Context, providerID string) (string, error) {
	p, sp, err := r.samlLoginProvider(ctx, providerID)
	if err != nil {
		return "", err
	}
	id, redirect, err := sp.AuthnRequest()
	if err != nil {
		return "", err
	}
	if err := r.addSAMLRequest(ctx, p.ID, id); err != nil {
		return "", err
	}
	return redirect, nil
}

// addSAMLRequest records a started login as outstanding.
func (r *Resolver) addSAMLRequest(ctx context.Context, providerID, requestID string) error {
	if err := r.Store.AddSAMLRequest(ctx, providerID, requestID, samlRequestTTL, maxSAMLRequests); err != nil {
		if errors.Is(err, storage.ErrTooManySAMLRequests) {
			return apierr.New(http.StatusTooManyRequests, "too many logins in progress through this provider; try again in a few minutes")
		}
		return err
	}
	return nil
}

// CompleteSAMLLogin accepts an identity provider's posted SAMLResponse. The
// answer must be signed by a configured certificate, issued by the
// provider's entityID, meant for docsapi (audience, destination, recipient),
// within its time window, and answer a request that is still outstanding;
// the request is consumed, so a replay is refused. The asserted e-mail
// signs in (the user is created when unknown), joins the organization with
// the provider's defaultRole and defaultTeam when not a member, becomes an
// SSO member and is seen now. The answer holds a new session API token,
// scoped to the organization and expiring after SessionTokenTTL.
func (r *Resolver) CompleteSAMLLogin(ctx context.Context, providerID, samlResponse string) (*model.SAMLSession, error) {
	p, sp, err := r.samlLoginProvider(ctx, providerID)
	if err != nil {
		return nil, err
	}
	refused := func(err error) error {
		return apierr.New(http.StatusUnauthorized, "%s", err.Error())
	}
	if samlResponse == "" {
		return nil, apierr.Invalid("SAMLResponse", "is required (an HTTP-POST binding form field)")
	}
	requestID, err := sso.InResponseTo(samlResponse)
	if err != nil {
		return nil, refused(err)
	}
	if ok, err := r.Store.SAMLRequestOutstanding(ctx, p.ID, requestID); err != nil {
		return nil, err
	} else if !ok {
		return nil, refused(errors.New("SAML response refused: it answers no login in progress through this provider (already used, expired, or never started)"))
	}
	who, err := sp.Verify(samlResponse, requestID)
	if err != nil {
		return nil, refused(err)
	}
	secret, hash := auth.NewToken()
	expires := r.Now().Add(SessionTokenTTL)
	var team *string
	if p.DefaultTeam != nil {
		team = &p.DefaultTeam.ID
	}
	// A login that makes the user a member is a member.added (its id is
	// the write's: Tx.created); the actor is anonymous, the address and
	// request id are the browser's.
	ctx = recordChange(ctx, p.OrganizationID, "member.added", "member", "", map[string]any{"email": who.Email, "role": p.DefaultRole, "sso": true, "samlProvider": p.ID})
	res, err := r.Store.SignInWithSAML(ctx, storage.SAMLSignIn{
		ProviderID: p.ID, RequestID: requestID, OrganizationID: p.OrganizationID,
		Email: who.Email, DisplayName: who.DisplayName, Role: p.DefaultRole, TeamID: team,
		Token: storage.Token{Hash: hash, Kind: "session", OrganizationID: &p.OrganizationID, ExpiresAt: &expires},
	})
	switch {
	case errors.Is(err, storage.ErrSAMLRequestUsed):
		return nil, refused(errors.New("SAML response refused: the login it answers was already completed"))
	case errors.Is(err, storage.ErrMemberDisabled):
		return nil, apierr.Forbidden("the membership of %s in this organization is disabled", who.Email)
	case err != nil:
		return nil, err
	}
	return &model.SAMLSession{
		Object: "sso-session", Token: secret, ExpiresAt: model.Time(expires),
		Organization: p.OrganizationID, User: r.userModel(res.User), Joined: res.Joined,
	}, nil
}

// samlChanged is the audit summary of a provider's fields: the certificate
// is named, not copied (README "Audit log").
func samlChanged(f storage.SAMLProviderFields) map[string]any {
	m := changed("label", f.Label, "entityId", f.EntityID, "ssoUrl", f.SSOURL, "defaultTeam", f.DefaultTeamID, "defaultRole", f.DefaultRole)
	if f.Certificate != nil {
		m["certificate"] = storage.Redacted
	}
	return m
}
