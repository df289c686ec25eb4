package model

import (
	"encoding/json"
	"io"
)

// InstallationStatus is the state of an installation.
type InstallationStatus string

var InstallationStatuses = newEnum[InstallationStatus]("active", "pending", "paused")

func (v InstallationStatus) MarshalGQL(w io.Writer)     { InstallationStatuses.marshal(w, v) }
func (v *InstallationStatus) UnmarshalGQL(in any) error { return InstallationStatuses.unmarshal(in, v) }
func (v InstallationStatus) IsValid() bool              { return InstallationStatuses.valid[v] }

// InstallationSelection says whether an installation covers all spaces (or
// sites) of its organization or a selection.
type InstallationSelection string

var InstallationSelections = newEnum[InstallationSelection]("all", "selected")

func (v InstallationSelection) MarshalGQL(w io.Writer) { InstallationSelections.marshal(w, v) }
func (v *InstallationSelection) UnmarshalGQL(in any) error {
	return InstallationSelections.unmarshal(in, v)
}
func (v InstallationSelection) IsValid() bool { return InstallationSelections.valid[v] }

type IntegrationInstallation struct {
	ID             string                `json:"id"`
	Status         InstallationStatus    `json:"status"`
	SpaceSelection InstallationSelection `json:"space_selection"`
	SiteSelection  InstallationSelection `json:"site_selection"`
	Spaces         int                   `json:"spaces"`
	Configuration  map[string]any        `json:"configuration"`
	CreatedAt      string                `json:"createdAt"`
	UpdatedAt      string                `json:"updatedAt"`
	Urls           InstallationURLs      `json:"urls"`
	ExternalIds    []string              `json:"externalIds"`
	Target         InstallationTarget    `json:"target"`
}

type InstallationURLs struct {
	Location       string `json:"location"`
	App            string `json:"app"`
	PublicEndpoint string `json:"publicEndpoint"`
}

type InstallationTarget struct {
	Organization string `json:"organization"`
}

type IntegrationInstallationList List[*IntegrationInstallation]

// OrganizationInstallation is an entry of GET /orgs/{id}/installations.
type OrganizationInstallation struct {
	Installation *IntegrationInstallation `json:"installation"`
	Integration  *Integration             `json:"integration"`
}

type OrganizationInstallationList List[*OrganizationInstallation]

type InstallIntegrationInput struct {
	Organization *string `json:"organization"`
}

// UpdateInstallationInput: omitted fields keep their value; configuration
// replaces the whole configuration.
type UpdateInstallationInput struct {
	ExternalIds    []string               `json:"externalIds,omitempty"`
	Configuration  map[string]any         `json:"configuration,omitempty"`
	SpaceSelection *InstallationSelection `json:"space_selection,omitempty"`
	SiteSelection  *InstallationSelection `json:"site_selection,omitempty"`
}

// TargetInstallationInput is the body of installing on a space ({space})
// or a site ({siteId}, 0.130.0's name; {site}, docsapi's earlier one, is
// still read when siteId is absent); exactly the keys of its kind are read.
type TargetInstallationInput struct {
	Space  *string `json:"space,omitempty"`
	SiteID *string `json:"siteId,omitempty"`
	Site   *string `json:"site,omitempty"`
}

type UpdateTargetInstallationInput struct {
	ExternalIds   []string       `json:"externalIds,omitempty"`
	Configuration map[string]any `json:"configuration,omitempty"`
}

type TargetInstallationURLs struct {
	Location       string `json:"location"`
	PublicEndpoint string `json:"publicEndpoint"`
}

// IntegrationSpaceInstallation is an integration installed on a space.
// Space is the space id. SpaceObject is the whole space in extended lists
// (when the caller can read it); REST writes it in place of the id, as the
// reference's `space` (id, or Space when expanded), GraphQL as spaceObject.
type IntegrationSpaceInstallation struct {
	Integration   string                 `json:"integration"`
	Installation  string                 `json:"installation"`
	Status        InstallationStatus     `json:"status"`
	Configuration map[string]any         `json:"configuration"`
	ExternalIds   []string               `json:"externalIds"`
	Urls          TargetInstallationURLs `json:"urls"`
	Space         string                 `json:"space"`
	SpaceObject   *Space                 `json:"spaceObject,omitempty"`
}

// MarshalJSON writes the REST shape: space is the id, or the Space.
func (e IntegrationSpaceInstallation) MarshalJSON() ([]byte, error) {
	type plain IntegrationSpaceInstallation
	obj := e.SpaceObject
	e.SpaceObject = nil
	if obj == nil {
		return json.Marshal(plain(e))
	}
	return json.Marshal(struct {
		plain
		Space *Space `json:"space"` // shallower: wins over plain's space
	}{plain(e), obj})
}

type IntegrationSpaceInstallationList List[*IntegrationSpaceInstallation]

// IntegrationSiteInstallation is an integration installed on a site. Site
// is the site id, SiteObject the whole site in extended lists (written in
// place of the id by REST, like IntegrationSpaceInstallation's space).
type IntegrationSiteInstallation struct {
	Integration   string                 `json:"integration"`
	Installation  string                 `json:"installation"`
	Status        InstallationStatus     `json:"status"`
	Configuration map[string]any         `json:"configuration"`
	ExternalIds   []string               `json:"externalIds"`
	Urls          TargetInstallationURLs `json:"urls"`
	Site          string                 `json:"site"`
	SiteObject    *Site                  `json:"siteObject,omitempty"`
}

// MarshalJSON writes the REST shape: site is the id, or the Site.
func (e IntegrationSiteInstallation) MarshalJSON() ([]byte, error) {
	type plain IntegrationSiteInstallation
	obj := e.SiteObject
	e.SiteObject = nil
	if obj == nil {
		return json.Marshal(plain(e))
	}
	return json.Marshal(struct {
		plain
		Site *Site `json:"site"` // shallower: wins over plain's site
	}{plain(e), obj})
}

type IntegrationSiteInstallationList List[*IntegrationSiteInstallation]

// InstallationToken is a temporary API token of an installation.
type InstallationToken struct {
	Token string `json:"token"`
}

// IntegrationEventStatus is the outcome of an event. pending (a docsapi
// addition to success|failed) marks an event whose delivery to the
// development tunnel is still queued or being retried.
type IntegrationEventStatus string

var IntegrationEventStatuses = newEnum[IntegrationEventStatus]("success", "failed", "pending")

func (v IntegrationEventStatus) MarshalGQL(w io.Writer) { IntegrationEventStatuses.marshal(w, v) }
func (v *IntegrationEventStatus) UnmarshalGQL(in any) error {
	return IntegrationEventStatuses.unmarshal(in, v)
}
func (v IntegrationEventStatus) IsValid() bool { return IntegrationEventStatuses.valid[v] }

// IntegrationLogLevel is the level of a trace line.
type IntegrationLogLevel string

var IntegrationLogLevels = newEnum[IntegrationLogLevel]("debug", "info", "warn", "error")

func (v IntegrationLogLevel) MarshalGQL(w io.Writer) { IntegrationLogLevels.marshal(w, v) }
func (v *IntegrationLogLevel) UnmarshalGQL(in any) error {
	return IntegrationLogLevels.unmarshal(in, v)
}
func (v IntegrationLogLevel) IsValid() bool { return IntegrationLogLevels.valid[v] }

type IntegrationEvent struct {
	ID             string                 `json:"id"`
	IntegrationID  string                 `json:"integrationId"`
	InstallationID *string                `json:"installationId,omitempty"`
	CreatedAt      string                 `json:"createdAt"`
	Payload        map[string]any         `json:"payload"`
	Status         IntegrationEventStatus `json:"status"`
}

type IntegrationEventList List[*IntegrationEvent]

type IntegrationEventDetail struct {
	Event *IntegrationEvent      `json:"event"`
	Trace *IntegrationEventTrace `json:"trace"`
}

type IntegrationEventTrace struct {
	Logs []*IntegrationEventLog `json:"logs"`
}

type IntegrationEventLog struct {
	Message   string              `json:"message"`
	Timestamp string              `json:"timestamp"`
	Level     IntegrationLogLevel `json:"level"`
}
