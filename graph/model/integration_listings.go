package model

// Integrations as a space, a site or an organization sees them (the
// space-integrations family of 0.130.0 and the organization's statuses).

// OrganizationIntegrationStatus is GET /orgs/{id}/integrations/{name}/installation_status.
type OrganizationIntegrationStatus struct {
	Status InstallationStatus `json:"status"`
}

// IntegrationStatus is an entry of GET /orgs/{id}/integrations/installations-status.
type IntegrationStatus struct {
	Status      InstallationStatus `json:"status"`
	Integration *Integration       `json:"integration"`
}

type IntegrationStatusList List[*IntegrationStatus]

// SpaceIntegrationBlocks are the blocks of one integration enabled in a space.
type SpaceIntegrationBlocks struct {
	Name   string              `json:"name"`
	Blocks []*IntegrationBlock `json:"blocks"`
}

// IntegrationScript is a script an integration enabled in a space or a
// site asks published content to load.
type IntegrationScript struct {
	Script                string  `json:"script"`
	ContentSecurityPolicy *string `json:"contentSecurityPolicy,omitempty"`
	Cookies               bool    `json:"cookies"`
}

// QueueIntegrationTaskInput is the body of POST /integrations/{name}/tasks.
type QueueIntegrationTaskInput struct {
	Task     map[string]any `json:"task"`
	Schedule *float64       `json:"schedule,omitempty"`
}
