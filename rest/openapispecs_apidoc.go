package rest

import (
	"docsapi/graph/model"
)

// Declarations of the routes in openapispecs.go for the served API description.

func init() {
	declareEnum[model.OpenAPISpecProcessingState](model.OpenAPISpecProcessingStates.List())
	declareEnum[model.OpenAPISpecVisibility](model.OpenAPISpecVisibilities.List())
	declareEnum[model.OpenAPISpecProcessingErrorCode](model.OpenAPISpecProcessingErrorCodes.List())
	const spec = "/orgs/{organizationId}/openapi/{specSlug}"
	describe(
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/openapi", ID: "listOpenAPISpecs", Tag: "openapi",
			Summary: "OpenAPI specifications of an organization.", Query: pageParams, Status: 200, Response: model.OpenAPISpecList{}},
		Operation{Method: "POST", Pattern: "/orgs/{organizationId}/openapi", ID: "createOpenAPISpec", Tag: "openapi",
			Summary: "Store an OpenAPI specification (create role); processing runs in the background.", Body: model.CreateOpenAPISpecInput{}, Status: 201, Response: model.OpenAPISpec{}},
		Operation{Method: "GET", Pattern: spec, ID: "getOpenAPISpecBySlug", Tag: "openapi",
			Summary: "An OpenAPI specification.", Status: 200, Response: model.OpenAPISpec{}, Conditional: true},
		Operation{Method: "PUT", Pattern: spec, ID: "createOrUpdateOpenAPISpecBySlug", Tag: "openapi",
			Summary: "Create (201) or update (200) an OpenAPI specification's source.", Body: model.PutOpenAPISpecInput{}, Status: 200, Response: model.OpenAPISpec{}, Conditional: true},
		Operation{Method: "PATCH", Pattern: spec, ID: "updateOpenAPISpecBySlug", Tag: "openapi",
			Summary: "Change an OpenAPI specification's visibility.", Body: model.UpdateOpenAPISpecInput{}, Status: 200, Response: model.OpenAPISpec{}, Conditional: true},
		Operation{Method: "DELETE", Pattern: spec, ID: "deleteOpenAPISpecBySlug", Tag: "openapi",
			Summary: "Delete an OpenAPI specification and its versions.", Status: 205, Conditional: true},
		Operation{Method: "GET", Pattern: spec + "/versions", ID: "listOpenAPISpecVersions", Tag: "openapi",
			Summary: "Processed versions of a specification, newest first.", Query: pageParams, Status: 200, Response: model.OpenAPISpecVersionList{}},
		Operation{Method: "GET", Pattern: spec + "/versions/latest", ID: "getLatestOpenAPISpecVersion", Tag: "openapi",
			Summary: "The latest processed version.", Status: 200, Response: model.OpenAPISpecVersion{}},
		Operation{Method: "GET", Pattern: spec + "/versions/latest/content", ID: "getLatestOpenAPISpecVersionContent", Tag: "openapi",
			Summary: "The document of the latest version.", Status: 200, Response: model.OpenAPISpecContent{}},
		Operation{Method: "GET", Pattern: spec + "/versions/{versionId}", ID: "getOpenAPISpecVersionById", Tag: "openapi",
			Summary: "A processed version.", Status: 200, Response: model.OpenAPISpecVersion{}},
		Operation{Method: "GET", Pattern: spec + "/versions/{versionId}/content", ID: "getOpenAPISpecVersionContentById", Tag: "openapi",
			Summary: "The document of a version.", Status: 200, Response: model.OpenAPISpecContent{}},
		Operation{Method: "GET", Pattern: spec + "/versions/{versionId}/raw", ID: "getOpenAPISpecVersionRawById", Tag: "openapi",
			Summary: "The document of a version as received (JSON or YAML; docsapi addition backing a version's url).", Status: 200},
	)
}
