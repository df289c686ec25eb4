package storage

import (
	"context"
	"time"
)

// The narrow interfaces below are what the resolvers depend on. *DB (SQLite)
// implements them all; a PostgreSQL backend will implement the same set.

type Users interface {
	UserByID(ctx context.Context, id string) (User, error)
	UpdateUser(ctx context.Context, id string, displayName, photoURL *string) error
	UserByEmail(ctx context.Context, email string) (User, error)
	UsersByIDs(ctx context.Context, ids []string) (map[string]User, error)
	SharesOrganization(ctx context.Context, a, b string) (bool, error)
}

type Tokens interface {
	TokenByHash(ctx context.Context, hash string) (Token, error)
	CreateToken(ctx context.Context, t *Token) error
	DeleteToken(ctx context.Context, id string) (bool, error)
	TokenChanges(ctx context.Context) (int64, error)
	TouchTokens(ctx context.Context, used map[string]time.Time) error
	ListUserTokens(ctx context.Context, userID string, pq PageQuery) (Page[Token], error)
	DeleteUserToken(ctx context.Context, userID, id string) (bool, error)
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
	NewTeam(ctx context.Context, orgID, title string, memberIDs []string) (Team, error)
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
	LinkInvite(ctx context.Context, orgID, id string) (LinkInvite, error)
	SetLinkInviteRole(ctx context.Context, orgID, id string, role *string) error
	JoinWithLinkInvite(ctx context.Context, orgID, inviteID, userID string) (bool, *string, error)
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
	RenewOpenAPIJob(ctx context.Context, job *OpenAPIJob) (bool, error)
	RequeueInterruptedOpenAPIJobs(ctx context.Context) (int, error)
}

// Translations are the resolvers' side of translations; the job queue
// methods are for the background runner (package translate).
type Translations interface {
	Translation(ctx context.Context, orgID, id string) (Translation, error)
	ListTranslations(ctx context.Context, orgID string, pq PageQuery) (Page[Translation], error)
	CreateTranslation(ctx context.Context, t *Translation) error
	SetTranslationInstructions(ctx context.Context, orgID, id, instructions string) error
	RequestTranslationRun(ctx context.Context, orgID, id string) error
	DeleteTranslation(ctx context.Context, orgID, id string) (bool, error)
	// The translations glossary.
	GlossaryEntry(ctx context.Context, orgID, id string) (GlossaryEntry, error)
	ListGlossaryEntries(ctx context.Context, orgID string, pq PageQuery) (Page[GlossaryEntry], error)
	ApplyGlossaryOps(ctx context.Context, orgID string, ops []GlossaryOp, maxEntries int) error
}

type Integrations interface {
	IntegrationByName(ctx context.Context, name, userID string) (Integration, error)
	ListIntegrations(ctx context.Context, f IntegrationFilter, pq PageQuery) (Page[Integration], error)
	PublishIntegration(ctx context.Context, p IntegrationPublish, newSecret string) error
	UnpublishIntegration(ctx context.Context, integrationID string) (bool, []string, error)
	IntegrationImage(ctx context.Context, name, id string) (ImageFile, error)
	SetDevelopmentMode(ctx context.Context, integrationID string, tunnelURL *string, all bool) error
	RotateSigningSecret(ctx context.Context, integrationID, secret string) error
	AdminOrganizations(ctx context.Context, userID string) ([]string, error)
	MemberOrganizations(ctx context.Context, userID string) ([]string, error)
	OrganizationByRef(ctx context.Context, ref string) (string, error)

	Installation(ctx context.Context, integrationID, installationID string) (Installation, error)
	ListInstallations(ctx context.Context, integrationID string, f InstallationFilter, pq PageQuery) (Page[Installation], error)
	ListOrganizationInstallations(ctx context.Context, orgID, userID, search string, pq PageQuery) (Page[OrgInstallation], error)
	EnabledIntegrations(ctx context.Context, orgID, kind, targetID, userID, search string) ([]EnabledIntegration, error)
	CreateInstallation(ctx context.Context, integrationID, orgID string, c InstallationChange) (Installation, error)
	UpdateInstallation(ctx context.Context, integrationID, installationID string, c InstallationChange) (Installation, error)
	DeleteInstallation(ctx context.Context, integrationID, installationID string, events func(prev Installation, targets []TargetInstallation) []NewEvent) (bool, []string, error)
	CreateInstallationToken(ctx context.Context, installationID string, t *Token) error
	InstallationOfToken(ctx context.Context, tokenID string) (Installation, []string, error)
	InstallationTargetsAmong(ctx context.Context, installationID, kind string, ids []string) (map[string]bool, error)
	SpaceGrantsAmong(ctx context.Context, orgID, userID string, teams, spaceIDs []string) ([]ContentGrant, error)

	TargetInstallation(ctx context.Context, installationID, kind, targetID string) (TargetInstallation, error)
	ListTargetInstallations(ctx context.Context, integrationID string, f TargetFilter, pq PageQuery) (Page[TargetInstallation], error)
	CreateTargetInstallation(ctx context.Context, in Installation, kind, targetID string, c TargetChange) (TargetInstallation, error)
	UpdateTargetInstallation(ctx context.Context, installationID, kind, targetID string, c TargetChange) (TargetInstallation, error)
	DeleteTargetInstallation(ctx context.Context, installationID, kind, targetID string, events func(prev TargetInstallation) []NewEvent) (bool, error)

	RecordEvents(ctx context.Context, events ...NewEvent) error
	ListEvents(ctx context.Context, integrationID string, pq PageQuery) (Page[Event], error)
	Event(ctx context.Context, integrationID, eventID string) (Event, []LogLine, error)
}

// Deliveries is the queue of event deliveries to development tunnels (used
// by the delivery worker).
type Deliveries interface {
	ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]Delivery, error)
	FinishDeliveries(ctx context.Context, outcomes []DeliveryOutcome) error
	NextDeliveryAt(ctx context.Context) (time.Time, bool, error)
}

// Webhooks is an organization's webhook endpoints and their deliveries
// (storage/webhooks.go).
type Webhooks interface {
	CreateWebhook(ctx context.Context, w *Webhook) error
	Webhook(ctx context.Context, orgID, id string) (Webhook, error)
	ListWebhooks(ctx context.Context, orgID string, pq PageQuery) (Page[Webhook], error)
	UpdateWebhook(ctx context.Context, orgID, id string, u WebhookUpdate) error
	DeleteWebhook(ctx context.Context, orgID, id string) (bool, error)
	RotateWebhookSecret(ctx context.Context, orgID, id, secret string, graceUntil time.Time) error
	ListWebhookDeliveries(ctx context.Context, webhookID string, pq PageQuery) (Page[WebhookDelivery], error)
	WebhookDeliveryOf(ctx context.Context, webhookID, eventID string) (WebhookDelivery, error)
	ReplayWebhookDelivery(ctx context.Context, webhookID, eventID string) error
	QueueWebhookPing(ctx context.Context, orgID, webhookID string) (string, error)
}

// WebhookDeliveries is the webhook outbox as its delivery worker drains it.
type WebhookDeliveries interface {
	ClaimWebhookDeliveries(ctx context.Context, now time.Time, lease time.Duration, c WebhookClaim) ([]WebhookAttempt, error)
	FinishWebhookDeliveries(ctx context.Context, outcomes []WebhookOutcome, disableAfter time.Duration) error
	NextWebhookDeliveryAt(ctx context.Context) (time.Time, bool, error)
	WebhooksWithExpiredDeliveries(ctx context.Context, after string, before time.Time, limit int) (ids []string, last string, err error)
	PurgeWebhookDeliveries(ctx context.Context, webhookID string, before time.Time, limit int) (int, error)
}

type Keys interface {
	SigningKey(ctx context.Context, algorithm string, gen func() (priv, pub []byte, err error)) (SigningKey, error)
}

// Pages is revisions' pages, files, links and search (storage/revisions.go,
// pages.go, links.go, search.go).
type Pages interface {
	SpaceHead(ctx context.Context, spaceID string) (SpaceHead, error)
	CreateRevision(ctx context.Context, c RevisionChange) (string, error)
	RevisionByID(ctx context.Context, spaceID, revID string) (Revision, error)
	RevisionPages(ctx context.Context, revID string) ([]ContentPage, error)
	RevisionPage(ctx context.Context, revID, key string, byPath bool) (ContentPage, error)
	PageChildren(ctx context.Context, revID, parentID string) ([]ContentPage, error)
	RevisionFiles(ctx context.Context, revID string) ([]File, error)
	ListRevisionFiles(ctx context.Context, revID string, pq PageQuery) (Page[File], error)
	RevisionFile(ctx context.Context, revID, fileID string) (File, error)
	FileBytes(ctx context.Context, blob string) ([]byte, error)
	FilesBytes(ctx context.Context, blobs []string) (map[string][]byte, error)
	ListLinks(ctx context.Context, revID, pageID, status string, pq PageQuery) (Page[LinkUsage], LinkStats, error)
	Backlinks(ctx context.Context, revID, kind, target string, pq PageQuery) (Page[string], error)
	PageLinkTargets(ctx context.Context, revID, pageID string) (map[string]LinkTarget, error)
	// ListLinksOfPages and BacklinksOfPages are ListLinks and Backlinks (of
	// pages) for many pages at once, in the statements of one read.
	ListLinksOfPages(ctx context.Context, revID string, pageIDs []string, status string, pq PageQuery) ([]PageLinks, error)
	BacklinksOfPages(ctx context.Context, revID string, targets []string, pq PageQuery) ([]Page[string], error)
	PagesAtPaths(ctx context.Context, revID string, paths []string) (map[string]string, error)
	SearchPages(ctx context.Context, spaceID, text string, offset, limit int) ([]PageHit, int, error)
	SearchSpaces(ctx context.Context, spaceIDs []string, text string, offset, limit, pagesPer int) ([]SpaceHit, int, error)
	SearchableSpaces(ctx context.Context, f SpaceFilter) ([]string, map[string]string, error)
}

type Idempotency interface {
	IdempotentResponse(ctx context.Context, scope, key string, since time.Time) (IdempotentResponse, error)
	SaveIdempotentResponse(ctx context.Context, scope, key string, res IdempotentResponse) error
	DropIdempotencyKey(ctx context.Context, scope, key, owner string) error
	PurgeIdempotentResponses(ctx context.Context, cutoff time.Time) (int64, error)
}

// Audit is the organization audit log (audit.go).
type Audit interface {
	ListAudit(ctx context.Context, orgID string, f AuditFilter, pq PageQuery) (Page[AuditEntry], error)
	AuditOrganizationsWithExpired(ctx context.Context, after string, before time.Time, limit int) (ids []string, last string, err error)
	PurgeAudit(ctx context.Context, orgID string, before time.Time, limit int) (int, error)
	MoveRecentAudit(ctx context.Context, limit int) (int, error)
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
	Translations
	Content
	Keys
	Pages
	SAML
	Idempotency
	Audit
	Integrations
	ChangeRequests
	Comments
	Sites
	PublishedSites
	SiteRedirects
	SiteEvents
	SiteCustomizations
	Webhooks
	Uploads
	CustomFonts
	GitSync
	Ping(ctx context.Context) error
}

var (
	_ Store             = (*DB)(nil)
	_ Deliveries        = (*DB)(nil)
	_ WebhookDeliveries = (*DB)(nil)
)
