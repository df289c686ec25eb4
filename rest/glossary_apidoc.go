package rest

import (
	"docsapi/graph/model"
)

// Declarations of the routes in glossary.go for the served API description.

func init() {
	declareEnum[model.GlossaryOperationType](model.GlossaryOperationTypes.List())
	const list = "/orgs/{organizationId}/translations-glossary"
	describe(
		Operation{Method: "GET", Pattern: list, ID: "listGlossaryEntries", Tag: "glossary",
			Summary: "The organization's translations glossary, oldest entry first (read role).", Query: pageParams, Status: 200, Response: model.GlossaryEntryList{}},
		Operation{Method: "PUT", Pattern: list, ID: "updateGlossaryEntries", Tag: "glossary",
			Summary: "Apply a batch of insert, update and delete operations to the glossary, all or nothing (create role).", Body: model.UpdateGlossaryEntriesInput{}, Status: 204},
		Operation{Method: "GET", Pattern: list + "/{glossaryEntryId}", ID: "getGlossaryEntry", Tag: "glossary",
			Summary: "A glossary entry.", Status: 200, Response: model.GlossaryEntry{}, Conditional: true},
	)
}
