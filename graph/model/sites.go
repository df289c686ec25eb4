package model

import (
	"encoding/json"
	"io"

	"github.com/99designs/gqlgen/graphql"

	"docsapi/apierr"
)

// SiteType is a site's plan.
type SiteType string

var SiteTypes = newEnum[SiteType]("basic", "premium", "ultimate", "sponsored", "legacy-basic", "legacy-premium")

func (v SiteType) MarshalGQL(w io.Writer)     { SiteTypes.marshal(w, v) }
func (v *SiteType) UnmarshalGQL(in any) error { return SiteTypes.unmarshal(in, v) }
func (v SiteType) IsValid() bool              { return SiteTypes.valid[v] }

// SiteVisibility is a site's audience.
type SiteVisibility string

var SiteVisibilities = newEnum[SiteVisibility]("public", "unlisted", "share-link", "visitor-auth")

func (v SiteVisibility) MarshalGQL(w io.Writer)     { SiteVisibilities.marshal(w, v) }
func (v *SiteVisibility) UnmarshalGQL(in any) error { return SiteVisibilities.unmarshal(in, v) }
func (v SiteVisibility) IsValid() bool              { return SiteVisibilities.valid[v] }

// SiteAgentsContext says whether agents may read the site.
type SiteAgentsContext string

var SiteAgentsContexts = newEnum[SiteAgentsContext]("excluded", "included")

func (v SiteAgentsContext) MarshalGQL(w io.Writer)     { SiteAgentsContexts.marshal(w, v) }
func (v *SiteAgentsContext) UnmarshalGQL(in any) error { return SiteAgentsContexts.unmarshal(in, v) }
func (v SiteAgentsContext) IsValid() bool              { return SiteAgentsContexts.valid[v] }

// SiteNewSpace asks createSite for a new space: with sample content or empty.
type SiteNewSpace string

var SiteNewSpaces = newEnum[SiteNewSpace]("sample", "empty")

func (v SiteNewSpace) MarshalGQL(w io.Writer)     { SiteNewSpaces.marshal(w, v) }
func (v *SiteNewSpace) UnmarshalGQL(in any) error { return SiteNewSpaces.unmarshal(in, v) }
func (v SiteNewSpace) IsValid() bool              { return SiteNewSpaces.valid[v] }

// SiteAdsStatus is the state of a site's ads.
type SiteAdsStatus string

var SiteAdsStatuses = newEnum[SiteAdsStatus]("pending", "in-review", "live", "rejected", "disabled")

func (v SiteAdsStatus) MarshalGQL(w io.Writer)     { SiteAdsStatuses.marshal(w, v) }
func (v *SiteAdsStatus) UnmarshalGQL(in any) error { return SiteAdsStatuses.unmarshal(in, v) }
func (v SiteAdsStatus) IsValid() bool              { return SiteAdsStatuses.valid[v] }

// SiteFeatureKey names a site feature.
type SiteFeatureKey string

var SiteFeatureKeys = newEnum[SiteFeatureKey]("sites-adaptive-content", "sites-advanced-customization", "sites-advanced-insights",
	"sites-ads", "sites-ai-search", "sites-ai-assistant", "sites-api-playground", "sites-basic-customization", "sites-custom-domain",
	"sites-custom-fonts", "sites-custom-subdirectory", "sites-full-text-search", "sites-multivariant-site", "sites-no-custom-domain",
	"sites-page-feedback", "sites-page-traffic-insights", "sites-pdf-export", "sites-preview-deployments", "sites-public-visibility",
	"sites-redirects", "sites-search-insights", "sites-sections", "sites-seo", "sites-share-links", "sites-unlisted-visibility",
	"sites-user-contribution", "sites-visitor-authentication", "sites-visitors")

func (v SiteFeatureKey) MarshalGQL(w io.Writer)     { SiteFeatureKeys.marshal(w, v) }
func (v *SiteFeatureKey) UnmarshalGQL(in any) error { return SiteFeatureKeys.unmarshal(in, v) }
func (v SiteFeatureKey) IsValid() bool              { return SiteFeatureKeys.valid[v] }

// SiteCustomizationFeature names an advanced customization.
type SiteCustomizationFeature string

var SiteCustomizationFeatures = newEnum[SiteCustomizationFeature]("header-logo", "theme-preset", "premium-fonts", "custom-icons",
	"footer-logo", "footer-links", "footer-copyright", "semantic-colors")

func (v SiteCustomizationFeature) MarshalGQL(w io.Writer) { SiteCustomizationFeatures.marshal(w, v) }
func (v *SiteCustomizationFeature) UnmarshalGQL(in any) error {
	return SiteCustomizationFeatures.unmarshal(in, v)
}
func (v SiteCustomizationFeature) IsValid() bool { return SiteCustomizationFeatures.valid[v] }

type Site struct {
	Object          string              `json:"object"`
	ID              string              `json:"id"`
	Type            SiteType            `json:"type"`
	Title           string              `json:"title"`
	Icon            *SiteIcon           `json:"icon"`
	Hostname        *string             `json:"hostname,omitempty"`
	Basename        string              `json:"basename"`
	Proxy           *SiteProxy          `json:"proxy,omitempty"`
	Visibility      SiteVisibility      `json:"visibility"`
	Published       bool                `json:"published"`
	SiteSpaces      int                 `json:"siteSpaces"`
	DefaultSpace    *string             `json:"defaultSpace"` // the default site space's space, null without one (0.130.0 requires it, undefined)
	CreatedAt       string              `json:"createdAt"`
	AdaptiveContent SiteAdaptiveContent `json:"adaptiveContent"`
	Ads             SiteAds             `json:"ads"`
	AgentsContext   SiteAgentsContext   `json:"agentsContext"`
	Features        []*SiteFeature      `json:"features"`
	Urls            SiteURLs            `json:"urls"`
}

// SiteIcon is {emoji}, {icon: {light, dark}}, or {} (no custom icon).
type SiteIcon struct {
	Emoji *string        `json:"emoji,omitempty"`
	Icon  *SiteThemedURL `json:"icon,omitempty"`
}

type SiteThemedURL struct {
	Light string `json:"light"`
	Dark  string `json:"dark"`
}

type SiteProxy struct {
	Origin string `json:"origin"`
	Target string `json:"target"`
}

type SiteAdaptiveContent struct {
	Enabled bool `json:"enabled"`
}

// SiteAds is one variant of the published interface's ads object, chosen
// by Status.
type SiteAds struct {
	Status      SiteAdsStatus `json:"status"`
	Submittable *bool         `json:"submittable,omitempty"`
}

type SiteFeature struct {
	ID             SiteFeatureKey             `json:"id"`
	Plan           SiteType                   `json:"plan"`
	Frozen         bool                       `json:"frozen"`
	Customizations []SiteCustomizationFeature `json:"customizations,omitempty"`
}

type SiteURLs struct {
	Location  string  `json:"location"`
	App       string  `json:"app"`
	Published *string `json:"published,omitempty"`
}

type SiteList List[*Site]

// CreateSiteInput: REST `spaces` is either a list of space ids or one of
// "sample"/"empty" (UnmarshalJSON splits it into Spaces and NewSpace).
type CreateSiteInput struct {
	Type       *SiteType       `json:"type,omitempty"`
	Title      *string         `json:"title,omitempty"`
	Visibility *SiteVisibility `json:"visibility,omitempty"`
	Spaces     []string        `json:"spaces,omitempty"`
	NewSpace   *SiteNewSpace   `json:"-"`
}

func (in *CreateSiteInput) UnmarshalJSON(b []byte) error {
	var raw struct {
		Type       *SiteType       `json:"type"`
		Title      *string         `json:"title"`
		Visibility *SiteVisibility `json:"visibility"`
		Spaces     json.RawMessage `json:"spaces"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	in.Type, in.Title, in.Visibility = raw.Type, raw.Title, raw.Visibility
	if len(raw.Spaces) == 0 || string(raw.Spaces) == "null" {
		return nil
	}
	var one SiteNewSpace
	if err := json.Unmarshal(raw.Spaces, &one); err == nil {
		in.NewSpace = &one
		return nil
	}
	if err := json.Unmarshal(raw.Spaces, &in.Spaces); err != nil {
		return apierr.Invalid("spaces", "must be an array of space ids, or one of %s", SiteNewSpaces.List())
	}
	return nil
}

// UpdateSiteInput: Omittable fields tell "omitted" from "null". Hostname
// and Icon are docsapi additions (the published interface has no route
// setting them).
type UpdateSiteInput struct {
	Title              *string                           `json:"title,omitempty"`
	Visibility         *SiteVisibility                   `json:"visibility,omitempty"`
	Basename           *string                           `json:"basename,omitempty"`
	AdaptiveContent    *SiteAdaptiveContentInput         `json:"adaptiveContent,omitempty"`
	AgentsContext      *SiteAgentsContext                `json:"agentsContext,omitempty"`
	DefaultSiteSpace   *string                           `json:"defaultSiteSpace,omitempty"`
	DefaultSiteSection *string                           `json:"defaultSiteSection,omitempty"`
	Proxy              graphql.Omittable[*string]        `json:"proxy,omitzero"`
	Hostname           graphql.Omittable[*string]        `json:"hostname,omitzero"`
	Icon               graphql.Omittable[*SiteIconInput] `json:"icon,omitzero"`
}

type SiteAdaptiveContentInput struct {
	Enabled bool `json:"enabled"`
}

// SiteIconInput: {emoji}, {icon: {light, dark}} or {} (no custom icon).
type SiteIconInput struct {
	Emoji *string             `json:"emoji,omitempty"`
	Icon  *SiteThemedURLInput `json:"icon,omitempty"`
}

type SiteThemedURLInput struct {
	Light string `json:"light"`
	Dark  string `json:"dark"`
}

// SiteAdaptiveSchema is the JSON Schema (draft-07) of a site's visitor claims.
type SiteAdaptiveSchema struct {
	Object     string         `json:"object"`
	JSONSchema map[string]any `json:"jsonSchema"`
	UpdatedAt  string         `json:"updatedAt"`
}

type UpdateSiteAdaptiveSchemaInput struct {
	JSONSchema map[string]any `json:"jsonSchema"`
}

type SiteAdaptiveTemplateCondition struct {
	Description string `json:"description"`
	Condition   string `json:"condition"`
}

type SiteAdaptiveTemplateConditionList struct {
	Items []*SiteAdaptiveTemplateCondition `json:"items"`
}

// SiteVisitorAuth is the key visitor tokens of a site are signed with
// (GraphQL only: the secret is shown to site admins).
type SiteVisitorAuth struct {
	Algorithm string `json:"algorithm"`
	Secret    string `json:"secret"`
	RotatedAt string `json:"rotatedAt"`
}

// ---- structure ----

// SiteStructureItem is a site space, a section or a section group.
type SiteStructureItem interface{ IsSiteStructureItem() }

type SiteSpace struct {
	Object                          string        `json:"object"`
	ID                              string        `json:"id"`
	Path                            string        `json:"path"`
	Section                         *string       `json:"section,omitempty"`
	Space                           *Space        `json:"space"`
	Title                           string        `json:"title"`
	Default                         bool          `json:"default"`
	Condition                       *string       `json:"condition,omitempty"`
	HasAdvancedCustomizationFeature bool          `json:"hasAdvancedCustomizationFeature"`
	Urls                            SiteSpaceURLs `json:"urls"`
}

func (*SiteSpace) IsSiteStructureItem() {}

// SiteSpaceURLs: location (a docsapi addition) is the API URL of the site
// space, published where it is served while the site is published.
type SiteSpaceURLs struct {
	Location  string  `json:"location"`
	Published *string `json:"published,omitempty"`
}

type SiteSpaceList List[*SiteSpace]

type SiteSection struct {
	Object       string          `json:"object"`
	ID           string          `json:"id"`
	Title        string          `json:"title"`
	Description  *string         `json:"description,omitempty"`
	Default      bool            `json:"default"`
	Path         string          `json:"path"`
	Condition    *string         `json:"condition,omitempty"`
	SectionGroup *string         `json:"sectionGroup,omitempty"`
	SiteSpaces   []*SiteSpace    `json:"siteSpaces"`
	Urls         SiteSectionURLs `json:"urls"`
	Icon         *string         `json:"icon,omitempty"`
}

func (*SiteSection) IsSiteStructureItem() {}

// SiteSectionURLs: location (a docsapi addition) is the API URL of the
// section.
type SiteSectionURLs struct {
	Location  string  `json:"location"`
	Published *string `json:"published,omitempty"`
}

type SiteSectionList List[*SiteSection]

type SiteSectionGroup struct {
	Object   string               `json:"object"`
	ID       string               `json:"id"`
	Title    string               `json:"title"`
	Icon     *string              `json:"icon,omitempty"`
	Sections []*SiteSection       `json:"sections"`
	Urls     SiteSectionGroupURLs `json:"urls"`
}

// SiteSectionGroupURLs (a docsapi addition): location is the API URL of the
// group.
type SiteSectionGroupURLs struct {
	Location string `json:"location"`
}

func (*SiteSectionGroup) IsSiteStructureItem() {}

type SiteSectionGroupList List[*SiteSectionGroup]

// SiteStructureType: sections (sections and groups at the root) or
// siteSpaces (site spaces at the root, for a site without sections).
type SiteStructureType string

var SiteStructureTypes = newEnum[SiteStructureType]("sections", "siteSpaces")

func (v SiteStructureType) MarshalGQL(w io.Writer)     { SiteStructureTypes.marshal(w, v) }
func (v *SiteStructureType) UnmarshalGQL(in any) error { return SiteStructureTypes.unmarshal(in, v) }
func (v SiteStructureType) IsValid() bool              { return SiteStructureTypes.valid[v] }

type SiteStructure struct {
	Type      SiteStructureType   `json:"type"`
	Structure []SiteStructureItem `json:"structure"`
}

// PublishedContentSite is a site as its audience sees it.
type PublishedContentSite struct {
	Object         string                      `json:"object"`
	Site           *Site                       `json:"site"`
	Structure      *SiteStructure              `json:"structure"`
	Customizations PublishedSiteCustomizations `json:"customizations"`
	Scripts        []*SiteIntegrationScript    `json:"scripts"`
}

// PublishedSiteCustomizations: the site's SiteCustomizationSettings (the
// documented defaults with the site's title and icon) and, by site space id,
// the settings of site spaces that override them: none in docsapi.
type PublishedSiteCustomizations struct {
	Site       map[string]any `json:"site"`
	SiteSpaces map[string]any `json:"siteSpaces"`
}

type SiteIntegrationScript struct {
	Script                string  `json:"script"`
	ContentSecurityPolicy *string `json:"contentSecurityPolicy,omitempty"`
	Cookies               bool    `json:"cookies"`
}

// SiteStructurePointerType names the kind of structure item a pointer names.
type SiteStructurePointerType string

var SiteStructurePointerTypes = newEnum[SiteStructurePointerType]("site-space", "site-section", "site-section-group")

func (v SiteStructurePointerType) MarshalGQL(w io.Writer) { SiteStructurePointerTypes.marshal(w, v) }
func (v *SiteStructurePointerType) UnmarshalGQL(in any) error {
	return SiteStructurePointerTypes.unmarshal(in, v)
}
func (v SiteStructurePointerType) IsValid() bool { return SiteStructurePointerTypes.valid[v] }

// SiteStructurePointerInput names a structure item: {type, id}.
type SiteStructurePointerInput struct {
	Type SiteStructurePointerType `json:"type"`
	ID   string                   `json:"id"`
}

type SiteStructurePositionInput struct {
	Before *SiteStructurePointerInput `json:"before,omitempty"`
	After  *SiteStructurePointerInput `json:"after,omitempty"`
}

// SortSiteStructureInput moves item before or after a sibling (neither: to
// the end of its container).
type SortSiteStructureInput struct {
	Item     SiteStructurePointerInput  `json:"item"`
	Position SiteStructurePositionInput `json:"position"`
}

// Deprecated moves: their pointers name the item with their own keys.

type SiteSpacePointerInput struct {
	Type      SiteStructurePointerType `json:"type"`
	SiteSpace string                   `json:"siteSpace"`
}

// Structure is the pointer as the structure sort takes it (nil stays nil).
func (p *SiteSpacePointerInput) Structure() *SiteStructurePointerInput {
	if p == nil {
		return nil
	}
	return &SiteStructurePointerInput{Type: p.Type, ID: p.SiteSpace}
}

type SiteSpacePositionInput struct {
	Before *SiteSpacePointerInput `json:"before,omitempty"`
	After  *SiteSpacePointerInput `json:"after,omitempty"`
}

type MoveSiteSpaceInput struct {
	Position *SiteSpacePositionInput `json:"position,omitempty"`
}

type SiteSectionPointerInput struct {
	Type        SiteStructurePointerType `json:"type"`
	SiteSection string                   `json:"siteSection"`
}

// Structure is the pointer as the structure sort takes it (nil stays nil).
func (p *SiteSectionPointerInput) Structure() *SiteStructurePointerInput {
	if p == nil {
		return nil
	}
	return &SiteStructurePointerInput{Type: p.Type, ID: p.SiteSection}
}

type SiteSectionPositionInput struct {
	Before *SiteSectionPointerInput `json:"before,omitempty"`
	After  *SiteSectionPointerInput `json:"after,omitempty"`
}

type MoveSiteSectionInput struct {
	Position *SiteSectionPositionInput `json:"position,omitempty"`
}

type MoveSiteSectionGroupInput struct {
	Position *SiteStructurePositionInput `json:"position,omitempty"`
}

type AddSpaceToSiteInput struct {
	SpaceID   string  `json:"spaceId"`
	SectionID *string `json:"sectionId,omitempty"`
}

// UpdateSiteSpaceInput: condition omitted leaves it, null removes it.
type UpdateSiteSpaceInput struct {
	Path      *string                    `json:"path,omitempty"`
	Condition graphql.Omittable[*string] `json:"condition,omitzero"`
	SpaceID   *string                    `json:"spaceId,omitempty"`
}

type AddSectionToSiteInput struct {
	SpaceID string                     `json:"spaceId"`
	Title   graphql.Omittable[*string] `json:"title,omitzero"`
	Icon    graphql.Omittable[*string] `json:"icon,omitzero"`
}

type UpdateSiteSectionInput struct {
	Title            *string                    `json:"title,omitempty"`
	Path             *string                    `json:"path,omitempty"`
	DefaultSiteSpace *string                    `json:"defaultSiteSpace,omitempty"`
	Condition        graphql.Omittable[*string] `json:"condition,omitzero"`
	Icon             graphql.Omittable[*string] `json:"icon,omitzero"`
	Description      graphql.Omittable[*string] `json:"description,omitzero"`
}

type AddSectionGroupToSiteInput struct {
	Title    string                     `json:"title"`
	Icon     graphql.Omittable[*string] `json:"icon,omitzero"`
	Sections []string                   `json:"sections,omitempty"`
}

type UpdateSiteSectionGroupInput struct {
	Title *string                    `json:"title,omitempty"`
	Icon  graphql.Omittable[*string] `json:"icon,omitzero"`
}

type AddSectionToGroupInput struct {
	SectionID string `json:"sectionId"`
}

// ---- share links ----

type ShareLink struct {
	Object    string        `json:"object"`
	ID        string        `json:"id"`
	CreatedAt string        `json:"createdAt"`
	Name      string        `json:"name"`
	Active    bool          `json:"active"`
	Urls      ShareLinkURLs `json:"urls"`
	// docsapi additions, in REST only when set, so a link without them
	// answers exactly as in 0.130.0.
	ExpiresAt         *string `json:"expiresAt,omitempty"`
	PasswordProtected bool    `json:"passwordProtected,omitempty"`
}

// ShareLinkURLs: location (a docsapi addition) is the API URL of the link.
type ShareLinkURLs struct {
	Location  string `json:"location"`
	Published string `json:"published"`
}

type ShareLinkList List[*ShareLink]

// CreateShareLinkInput: expiresAt and password are docsapi additions.
type CreateShareLinkInput struct {
	Name      *string `json:"name,omitempty"`
	ExpiresAt *string `json:"expiresAt,omitempty"`
	Password  *string `json:"password,omitempty"`
}

// UpdateShareLinkInput: expiresAt and password (docsapi additions) are set
// or changed by a value and removed by null.
type UpdateShareLinkInput struct {
	Active    *bool                      `json:"active,omitempty"`
	Name      *string                    `json:"name,omitempty"`
	ExpiresAt graphql.Omittable[*string] `json:"expiresAt,omitzero"`
	Password  graphql.Omittable[*string] `json:"password,omitzero"`
}
