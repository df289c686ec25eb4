package storage

import (
	"context"
	"time"
)

// The narrow interfaces below are what the resolvers depend on. *DB (SQLite)
// implements them all; a PostgreSQL backend will implement the same set.

type Users interface {
	UserByID(ctx context.Context, id string) (User, error)
	UserByEmail(ctx context.Context, email string) (User, error)
	UsersByIDs(ctx context.Context, ids []string) (map[string]User, error)
	SharesOrganization(ctx context.Context, a, b string) (bool, error)
}

type Tokens interface {
	TokenByHash(ctx context.Context, hash string) (Token, error)
	CreateToken(ctx context.Context, t *Token) error
	DeleteToken(ctx context.Context, id string) (bool, error)
}

type Organizations interface {
	OrganizationFor(ctx context.Context, orgID, userID string) (Organization, *Membership, error)
	MembershipOf(ctx context.Context, orgID, userID string) (*Membership, error)
	ListOrganizationsOfUser(ctx context.Context, userID string, pq PageQuery) (Page[OrgListItem], error)
	OrganizationsByEmailDomain(ctx context.Context, domain, userID string) ([]OrgListItem, []bool, error)
	UpdateOrganization(ctx context.Context, id string, p OrganizationPatch) error
	CreateOrganizationWithAdmin(ctx context.Context, title, email, name, tokenHash string) (Bootstrap, error)
	CountUsers(ctx context.Context) (int, error)
}

type Members interface {
	Member(ctx context.Context, orgID, userID string) (Member, error)
	ListMembers(ctx context.Context, orgID string, f MemberFilter, pq PageQuery) (Page[Member], error)
	AddMember(ctx context.Context, orgID, userID string, role *string) error
	CreateUserWithToken(ctx context.Context, email, name, orgID string, role *string, withOrg bool, tokenHash string) (User, Token, error)
	UpdateMemberRole(ctx context.Context, orgID, userID string, role *string) error
	RemoveMember(ctx context.Context, orgID, userID string) (bool, error)
	SetMemberSSO(ctx context.Context, orgID, userID string) error
	TouchMember(ctx context.Context, orgID, userID string) error
	InviteByEmail(ctx context.Context, orgID string, invitees []Invitee, sso bool) ([]string, error)
}

type Teams interface {
	Team(ctx context.Context, orgID, teamID string) (Team, error)
	ListTeams(ctx context.Context, orgID string, f TeamFilter, pq PageQuery) (Page[Team], error)
	ListTeamsOfMember(ctx context.Context, orgID, userID, title string, pq PageQuery) (Page[MemberTeam], error)
	TeamRole(ctx context.Context, teamID, userID string) (string, error)
	OwnedTeamIDs(ctx context.Context, orgID, userID string) (map[string]bool, error)
	CreateTeam(ctx context.Context, orgID, title string, memberIDs []string) (string, error)
	RenameTeam(ctx context.Context, orgID, teamID, title string) error
	DeleteTeam(ctx context.Context, orgID, teamID string) (bool, error)
	ChangeTeamMembers(ctx context.Context, orgID, teamID string, c TeamMembersChange) error
	SetTeamMember(ctx context.Context, orgID, teamID, userID, role string) error
	RemoveTeamMember(ctx context.Context, teamID, userID string) (bool, error)
	ListTeamMembers(ctx context.Context, orgID, teamID string, pq PageQuery) (Page[TeamMember], error)
	MemberIDsByRef(ctx context.Context, orgID string, refs []string) (map[string]string, []string, error)
}

type Invites interface {
	CreateLinkInvite(ctx context.Context, inv *LinkInvite) error
	ListLinkInvites(ctx context.Context, orgID string, pq PageQuery) (Page[LinkInvite], error)
	LinkInviteExists(ctx context.Context, orgID string, role *string, kind string, target *string) (bool, error)
	DeleteLinkInvite(ctx context.Context, orgID, id string) (bool, error)
}

type SAML interface {
	SAMLProvider(ctx context.Context, orgID, id string) (SAMLProvider, error)
	SAMLProviderByID(ctx context.Context, id string) (SAMLProvider, error)
	ListSAMLProviders(ctx context.Context, orgID string, pq PageQuery) (Page[SAMLProvider], error)
	SAMLLogins(ctx context.Context, orgID string) ([]SAMLLogin, error)
	CreateSAMLProvider(ctx context.Context, orgID string, f SAMLProviderFields) (string, error)
	UpdateSAMLProvider(ctx context.Context, orgID, id string, f SAMLProviderFields) error
	DeleteSAMLProvider(ctx context.Context, orgID, id string) (bool, error)
	AddSAMLRequest(ctx context.Context, providerID, requestID string, ttl time.Duration, max int) error
	SAMLRequestOutstanding(ctx context.Context, providerID, requestID string) (bool, error)
	SignInWithSAML(ctx context.Context, s SAMLSignIn) (SAMLSignInResult, error)
}

type OpenAPISpecs interface {
	OpenAPISpec(ctx context.Context, orgID, slug string) (OpenAPISpec, error)
	ListOpenAPISpecs(ctx context.Context, orgID string, pq PageQuery) (Page[OpenAPISpec], error)
	CreateOpenAPISpec(ctx context.Context, orgID, slug string, src OpenAPISource) (OpenAPISpec, error)
	PutOpenAPISpec(ctx context.Context, orgID, slug string, src OpenAPISource) (OpenAPISpec, bool, error)
	SetOpenAPISpecVisibility(ctx context.Context, orgID, slug, visibility string) error
	DeleteOpenAPISpec(ctx context.Context, orgID, slug string) (bool, error)
	ListOpenAPIVersions(ctx context.Context, specID string, pq PageQuery) (Page[OpenAPIVersion], error)
	OpenAPIVersion(ctx context.Context, specID, versionID string) (OpenAPIVersion, error)
	OpenAPIVersionDocument(ctx context.Context, specID, versionID string) (OpenAPIVersion, []byte, error)
	// The processing queue (background processor only).
	ClaimOpenAPIJob(ctx context.Context) (*OpenAPIJob, error)
	FinishOpenAPIJob(ctx context.Context, job *OpenAPIJob, out OpenAPIOutcome) (OpenAPIFinish, error)
	ReleaseOpenAPIJob(ctx context.Context, job *OpenAPIJob) error
	RequeueInterruptedOpenAPIJobs(ctx context.Context) (int, error)
}

type Keys interface {
	SigningKey(ctx context.Context, algorithm string, gen func() (priv, pub []byte, err error)) (SigningKey, error)
}

type Idempotency interface {
	IdempotentResponse(ctx context.Context, scope, key string, since time.Time) (IdempotentResponse, error)
	SaveIdempotentResponse(ctx context.Context, scope, key string, res IdempotentResponse) error
	PurgeIdempotentResponses(ctx context.Context, cutoff time.Time) (int64, error)
}

// Store is everything the resolvers use. Each resource family adds its
// interface here.
type Store interface {
	Users
	Tokens
	Organizations
	Members
	Teams
	Invites
	OpenAPISpecs
	Content
	Keys
	SAML
	Idempotency
	Sites
	Ping(ctx context.Context) error
}

var _ Store = (*DB)(nil)
