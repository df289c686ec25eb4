package model

// GitSyncState is 0.130.0's GitSyncState, with the latest operation (a
// docsapi addition: the schema declares no closed set of properties).
type GitSyncState struct {
	RepoName             *string           `json:"repoName,omitempty"`
	InstallationProvider *string           `json:"installationProvider,omitempty"`
	Integration          *string           `json:"integration,omitempty"`
	URL                  *string           `json:"url,omitempty"`
	UpdatedAt            *string           `json:"updatedAt,omitempty"`
	Operation            *GitSyncOperation `json:"operation,omitempty"`
}

// GitSyncOperation is one queued Git Sync import or export (docsapi addition).
type GitSyncOperation struct {
	ID        string  `json:"id"`
	Kind      string  `json:"kind"`
	Status    string  `json:"status"`
	Stage     string  `json:"stage"`
	Message   string  `json:"message"`
	URL       string  `json:"url"`
	Ref       string  `json:"ref"`
	Commit    *string `json:"commit,omitempty"`
	Revision  *string `json:"revision,omitempty"`
	Timestamp string  `json:"timestamp"`
	CreatedAt string  `json:"createdAt"`
	UpdatedAt string  `json:"updatedAt"`
}

// UpdateSpaceGitInfo is 0.130.0's UpdateSpaceGitInfo.
type UpdateSpaceGitInfo struct {
	Provider *string `json:"provider,omitempty"`
	URL      *string `json:"url,omitempty"`
}

// ImportGitRepositoryInput is 0.130.0's ImportGitRepository body.
type ImportGitRepositoryInput struct {
	URL                  string              `json:"url"`
	Ref                  string              `json:"ref"`
	RepoCacheID          *string             `json:"repoCacheID,omitempty"`
	RepoTreeURL          *string             `json:"repoTreeURL,omitempty"`
	RepoCommitURL        *string             `json:"repoCommitURL,omitempty"`
	RepoProjectDirectory *string             `json:"repoProjectDirectory,omitempty"`
	Timestamp            *string             `json:"timestamp,omitempty"`
	Force                *bool               `json:"force,omitempty"`
	Standalone           *bool               `json:"standalone,omitempty"`
	GitInfo              *UpdateSpaceGitInfo `json:"gitInfo,omitempty"`
	// ChangeRequest is docsapi's extension: a change request of the space
	// to import into instead of the main content.
	ChangeRequest *string `json:"changeRequest,omitempty"`
}

// ExportToGitRepositoryInput is 0.130.0's ExportToGitRepository body.
type ExportToGitRepositoryInput struct {
	URL                  string              `json:"url"`
	Ref                  string              `json:"ref"`
	CommitMessage        string              `json:"commitMessage"`
	RepoCacheID          *string             `json:"repoCacheID,omitempty"`
	RepoTreeURL          *string             `json:"repoTreeURL,omitempty"`
	RepoCommitURL        *string             `json:"repoCommitURL,omitempty"`
	RepoProjectDirectory *string             `json:"repoProjectDirectory,omitempty"`
	Timestamp            *string             `json:"timestamp,omitempty"`
	Force                *bool               `json:"force,omitempty"`
	GitInfo              *UpdateSpaceGitInfo `json:"gitInfo,omitempty"`
}
