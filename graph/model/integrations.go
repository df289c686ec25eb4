package model

import "io"

// IntegrationRuntime is the runtime an integration is published against.
type IntegrationRuntime string

var IntegrationRuntimes = newEnum[IntegrationRuntime]("v1", "v2")

func (v IntegrationRuntime) MarshalGQL(w io.Writer)     { IntegrationRuntimes.marshal(w, v) }
func (v *IntegrationRuntime) UnmarshalGQL(in any) error { return IntegrationRuntimes.unmarshal(in, v) }
func (v IntegrationRuntime) IsValid() bool              { return IntegrationRuntimes.valid[v] }

// IntegrationTarget is where an integration may be installed.
type IntegrationTarget string

var IntegrationTargets = newEnum[IntegrationTarget]("all", "site", "space", "organization")

func (v IntegrationTarget) MarshalGQL(w io.Writer)     { IntegrationTargets.marshal(w, v) }
func (v *IntegrationTarget) UnmarshalGQL(in any) error { return IntegrationTargets.unmarshal(in, v) }
func (v IntegrationTarget) IsValid() bool              { return IntegrationTargets.valid[v] }

// IntegrationVisibility says who sees an integration.
type IntegrationVisibility string

var IntegrationVisibilities = newEnum[IntegrationVisibility]("public", "private", "unlisted")

func (v IntegrationVisibility) MarshalGQL(w io.Writer) { IntegrationVisibilities.marshal(w, v) }
func (v *IntegrationVisibility) UnmarshalGQL(in any) error {
	return IntegrationVisibilities.unmarshal(in, v)
}
func (v IntegrationVisibility) IsValid() bool { return IntegrationVisibilities.valid[v] }

// IntegrationScope is a permission an integration asks for.
type IntegrationScope string

var IntegrationScopes = newEnum[IntegrationScope](
	"space:views:read", "space:content:read", "space:content:write", "space:metadata:read", "space:metadata:write",
	"space:script:inject", "space:script:cookies", "space:git:sync", "space:visitor:auth",
	"site:metadata:read", "site:views:read", "site:script:inject", "site:script:cookies", "site:visitor:auth",
	"site:adaptive:read", "site:adaptive:write", "openapi:read", "openapi:write", "conversations:ingest")

func (v IntegrationScope) MarshalGQL(w io.Writer)     { IntegrationScopes.marshal(w, v) }
func (v *IntegrationScope) UnmarshalGQL(in any) error { return IntegrationScopes.unmarshal(in, v) }
func (v IntegrationScope) IsValid() bool              { return IntegrationScopes.valid[v] }

// IntegrationCategory is a marketplace category.
type IntegrationCategory string

var IntegrationCategories = newEnum[IntegrationCategory]("analytics", "collaboration", "content", "gitsync", "marketing", "visitor-auth", "other")

func (v IntegrationCategory) MarshalGQL(w io.Writer) { IntegrationCategories.marshal(w, v) }
func (v *IntegrationCategory) UnmarshalGQL(in any) error {
	return IntegrationCategories.unmarshal(in, v)
}
func (v IntegrationCategory) IsValid() bool { return IntegrationCategories.valid[v] }

type Integration struct {
	Object                string                      `json:"object"`
	Name                  string                      `json:"name"`
	Version               int                         `json:"version"`
	Title                 string                      `json:"title"`
	Description           string                      `json:"description"`
	Summary               string                      `json:"summary"`
	PreviewImages         []string                    `json:"previewImages"`
	Target                IntegrationTarget           `json:"target"`
	Verified              bool                        `json:"verified"`
	Visibility            IntegrationVisibility       `json:"visibility"`
	Scopes                []IntegrationScope          `json:"scopes"`
	Categories            []IntegrationCategory       `json:"categories"`
	Blocks                []*IntegrationBlock         `json:"blocks"`
	ContentSources        []*IntegrationContentSource `json:"contentSources"`
	Configurations        map[string]any              `json:"configurations"`
	ExternalLinks         []*IntegrationExternalLink  `json:"externalLinks"`
	Owner                 *Organization               `json:"owner"`
	Urls                  IntegrationURLs             `json:"urls"`
	Permissions           IntegrationPermissions      `json:"permissions"`
	ContentSecurityPolicy any                         `json:"contentSecurityPolicy,omitempty"`
}

type IntegrationBlock struct {
	ID          string                    `json:"id"`
	Title       string                    `json:"title"`
	Description *string                   `json:"description,omitempty"`
	Icon        *string                   `json:"icon,omitempty"`
	URLUnfurl   []string                  `json:"urlUnfurl,omitempty"`
	Markdown    *IntegrationBlockMarkdown `json:"markdown,omitempty"`
}

type IntegrationBlockMarkdown struct {
	Codeblock string `json:"codeblock"`
	Body      string `json:"body"`
}

type IntegrationContentSource struct {
	ID            string                            `json:"id"`
	Title         string                            `json:"title"`
	Description   *string                           `json:"description,omitempty"`
	Icon          *string                           `json:"icon,omitempty"`
	Configuration IntegrationConfigurationComponent `json:"configuration"`
}

type IntegrationConfigurationComponent struct {
	ComponentID string `json:"componentId"`
}

type IntegrationExternalLink struct {
	URL   string `json:"url"`
	Label string `json:"label"`
}

type IntegrationURLs struct {
	Location       string  `json:"location"`
	Icon           *string `json:"icon,omitempty"`
	App            string  `json:"app"`
	Assets         string  `json:"assets"`
	PublicEndpoint string  `json:"publicEndpoint"`
}

type IntegrationPermissions struct {
	Admin   bool `json:"admin"`
	Install bool `json:"install"`
}

type IntegrationList List[*Integration]

// PublishIntegrationInput is the body of POST /integrations/{name}. Blocks,
// ContentSources, Configurations and ContentSecurityPolicy are free JSON
// here and validated by the resolver (their shapes are unions).
type PublishIntegrationInput struct {
	Runtime               *IntegrationRuntime             `json:"runtime,omitempty"`
	Icon                  *string                         `json:"icon,omitempty"`
	Title                 *string                         `json:"title"`
	Description           *string                         `json:"description"`
	Summary               *string                         `json:"summary,omitempty"`
	PreviewImages         []string                        `json:"previewImages,omitempty"`
	Visibility            *IntegrationVisibility          `json:"visibility,omitempty"`
	Target                *IntegrationTarget              `json:"target,omitempty"`
	Scopes                []IntegrationScope              `json:"scopes"`
	Categories            []IntegrationCategory           `json:"categories,omitempty"`
	Blocks                any                             `json:"blocks,omitempty"`
	ContentSources        any                             `json:"contentSources,omitempty"`
	ExternalLinks         []*IntegrationExternalLinkInput `json:"externalLinks,omitempty"`
	Configurations        any                             `json:"configurations,omitempty"`
	Script                *string                         `json:"script"`
	Organization          *string                         `json:"organization"`
	Secrets               map[string]any                  `json:"secrets,omitempty"`
	ContentSecurityPolicy any                             `json:"contentSecurityPolicy,omitempty"`
}

type IntegrationExternalLinkInput struct {
	URL   string `json:"url"`
	Label string `json:"label"`
}

type SetIntegrationDevelopmentModeInput struct {
	TunnelURL *string `json:"tunnelUrl"`
	All       *bool   `json:"all,omitempty"`
}

// IntegrationDevelopment is the development-mode state of an integration
// (GraphQL only: REST has no read of it).
type IntegrationDevelopment struct {
	Enabled       bool    `json:"enabled"`
	TunnelURL     *string `json:"tunnelUrl"`
	All           bool    `json:"all"`
	SigningSecret string  `json:"signingSecret"`
}

// RenderResult is a rendered UI and the cache policy the runtime asked for.
type RenderResult struct {
	Output       map[string]any `json:"output"`
	CacheControl *string        `json:"cacheControl"`
	// ContentSecurityPolicy is the integration's policy as a header value.
	ContentSecurityPolicy *string `json:"contentSecurityPolicy"`
}
