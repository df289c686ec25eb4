package rest

import "docsapi/graph/model"

// Declarations of the routes in gitsync.go for the served API description.

func init() {
	describe(
		Operation{Method: "POST", Pattern: "/spaces/{spaceId}/git/import", ID: "importGitRepository", Tag: "space-git",
			Summary: "Queue an import of a Git repository's ref into the space (edit role); 204, the import runs in the background.", Body: model.ImportGitRepositoryInput{}, Status: 204},
		Operation{Method: "POST", Pattern: "/spaces/{spaceId}/git/export", ID: "exportToGitRepository", Tag: "space-git",
			Summary: "Queue an export of the space's content as one commit on a Git ref (edit role); 204, the export runs in the background.", Body: model.ExportToGitRepositoryInput{}, Status: 204},
		Operation{Method: "GET", Pattern: "/spaces/{spaceId}/git/info", ID: "getSpaceGitInfo", Tag: "space-git",
			Summary: "The space's Git Sync state, with its latest operation (read role); 404 when none was set up.", Status: 200, Response: model.GitSyncState{}},
		Operation{Method: "DELETE", Pattern: "/spaces/{spaceId}/git/legacy-installation", ID: "deleteLegacyGitInstallation", Tag: "space-git",
			Summary: "Remove the space's legacy Git Sync installation (admin role): 205 when removed, 204 when there was none.", Status: 205},
	)
}
