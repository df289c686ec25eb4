package rest

import (
	"docsapi/graph/model"
)

// Declarations of the routes in fonts.go for the served API description.

func init() {
	describe(
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/fonts", ID: "listCustomFonts", Tag: "fonts",
			Summary: "The organization's custom fonts (any member).", Query: pageParams, Status: 200, Response: model.CustomizationFontDefinitionList{}},
		Operation{Method: "PUT", Pattern: "/orgs/{organizationId}/fonts", ID: "createCustomFont", Tag: "fonts",
			Summary: "Create a custom font from files uploaded with generateStorageUploadURL, kind customization_font, woff2 or woff (admin). Weight 400 is required (412).",
			Body:    model.CreateCustomFontInput{}, Status: 201, Response: model.CustomizationFontDefinition{}},
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/fonts/{fontId}", ID: "getCustomFont", Tag: "fonts",
			Summary: "A custom font (any member).", Status: 200, Response: model.CustomizationFontDefinition{}, Conditional: true},
		Operation{Method: "POST", Pattern: "/orgs/{organizationId}/fonts/{fontId}", ID: "updateCustomFont", Tag: "fonts",
			Summary: "Rename a custom font, add or replace faces (an upload key) or remove them (a null key) (admin). Weight 400 must remain (412).",
			Body:    model.UpdateCustomFontInput{}, Status: 201, Response: model.CustomizationFontDefinition{}, Conditional: true},
		Operation{Method: "DELETE", Pattern: "/orgs/{organizationId}/fonts/{fontId}", ID: "deleteCustomFont", Tag: "fonts",
			Summary: "Delete a custom font and its files (admin).", Status: 205, Conditional: true},
	)
}
