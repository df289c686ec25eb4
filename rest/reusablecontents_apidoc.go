package rest

// Declarations of the routes in reusablecontents.go for the served API
// description.

func init() {
	read := func(pattern, id, summary string) Operation {
		return Operation{Method: "GET", Pattern: pattern, ID: id, Tag: "spaces", Summary: summary, Query: contentReadFlags, Status: 200, Response: map[string]any{}}
	}
	describe(
		read("/spaces/{spaceId}/content/reusable-contents/{reusableContentId}", "getReusableContentById", "A reusable content of the active revision: {id, title, document}."),
		read(crPrefix+"/content/reusable-contents/{reusableContentId}", "getReusableContentInChangeRequestById", "A reusable content of a change request's head."),
		read("/spaces/{spaceId}/revisions/{revisionId}/reusable-contents/{reusableContentId}", "getReusableContentInRevisionById", "A reusable content of a revision."),
		Operation{Method: "GET", Pattern: "/spaces/{spaceId}/documents/{documentId}", ID: "getDocumentById", Tag: "spaces",
			Summary: "A document of the space (the body of a reusable content of its active revision) as a JSON document.",
			Query:   []Param{{Name: "schema", Type: "", Description: "current (default) or next: docsapi has one document schema."}}, Status: 200, Response: map[string]any{}},
	)
}
