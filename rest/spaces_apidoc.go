package rest

import (
	"docsapi/graph"
	"docsapi/graph/model"
)

// Declarations of the routes in spaces.go and collections.go for the served
// API description.

func init() {
	declareEnum[model.DefaultLevel](model.DefaultLevels.List())
	declareEnum[model.ContentPointerType](model.ContentPointerTypes.List())
	declareEnum[model.ContentVisibility](model.ContentVisibilities.List())
	declareEnum[model.SpaceEditMode](model.SpaceEditModes.List())
	order := Param{Name: "order", Type: model.Order(""), Description: "asc or desc (default desc)."}
	describe(
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/spaces", ID: "listSpacesInOrganizationById", Tag: "spaces",
			Summary: "Spaces of an organization the caller can see, in tree order.", Query: pageParams, Status: 200, Response: model.SpaceList{}},
		Operation{Method: "POST", Pattern: "/orgs/{organizationId}/spaces", ID: "createSpace", Tag: "spaces",
			Summary: "Create a space (create role on its parent).", Body: model.CreateSpaceInput{}, BodyOptional: true, Status: 201, Response: model.Space{}},
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/members/{userId}/spaces", ID: "listSpacesForOrganizationMember", Tag: "members",
			Summary: "Spaces a member can reach, with their permission.", Query: append([]Param{order}, pageParams...), Status: 200, Response: model.MemberSpaceList{}},
		Operation{Method: "GET", Pattern: "/spaces/{spaceId}", ID: "getSpaceById", Tag: "spaces",
			Summary: "A space.", Query: []Param{{Name: "shareKey", Type: "", Description: "Share-link key resolving published URLs (a password-protected link also needs the " + graph.ShareLinkPasswordHeader + " header)."}},
			Status: 200, Response: model.Space{}, Conditional: true},
		Operation{Method: "PATCH", Pattern: "/spaces/{spaceId}", ID: "updateSpaceById", Tag: "spaces",
			Summary: "Change a space's settings (admin on the space).", Body: model.UpdateSpaceInput{}, Status: 200, Response: model.Space{}, Conditional: true},
		Operation{Method: "DELETE", Pattern: "/spaces/{spaceId}", ID: "deleteSpaceById", Tag: "spaces",
			Summary: "Move a space to the trash (restorable for 7 days).", Status: 205, Conditional: true},
		Operation{Method: "POST", Pattern: "/spaces/{spaceId}/duplicate", ID: "duplicateSpace", Tag: "spaces",
			Summary: "Copy a space with its content and settings.", Status: 201, Response: model.Space{}},
		Operation{Method: "POST", Pattern: "/spaces/{spaceId}/restore", ID: "restoreSpace", Tag: "spaces",
			Summary: "Bring a space back from the trash (within 7 days).", Status: 200, Response: model.Space{}},
		Operation{Method: "POST", Pattern: "/spaces/{spaceId}/move", ID: "moveSpace", Tag: "spaces",
			Summary: "Move a space to another parent or position.", Body: model.MoveContentInput{}, Status: 200, Response: model.Space{}},
		Operation{Method: "POST", Pattern: "/spaces/{spaceId}/transfer", ID: "transferSpace", Tag: "spaces",
			Summary: "Transfer a space to another organization (admin in both).", Body: model.TransferContentInput{}, Status: 200, Response: model.Space{}},

		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/collections", ID: "listCollectionsInOrganizationById", Tag: "collections",
			Summary: "Collections of an organization the caller can see, in tree order.",
			Query:   append([]Param{{Name: "nested", Type: false, Description: "List nested collections too (default true)."}}, pageParams...),
			Status:  200, Response: model.CollectionList{}},
		Operation{Method: "POST", Pattern: "/orgs/{organizationId}/collections", ID: "createCollection", Tag: "collections",
			Summary: "Create a collection.", Body: model.CreateCollectionInput{}, BodyOptional: true, Status: 201, Response: model.Collection{}},
		Operation{Method: "GET", Pattern: "/collections/{collectionId}", ID: "getCollectionById", Tag: "collections",
			Summary: "A collection.", Status: 200, Response: model.Collection{}, Conditional: true},
		Operation{Method: "PATCH", Pattern: "/collections/{collectionId}", ID: "updateCollectionById", Tag: "collections",
			Summary: "Change a collection.", Body: model.UpdateCollectionInput{}, Status: 200, Response: model.Collection{}, Conditional: true},
		Operation{Method: "DELETE", Pattern: "/collections/{collectionId}", ID: "deleteCollectionById", Tag: "collections",
			Summary: "Delete a collection and its sub-collections; their spaces go to the trash.", Status: 205, Conditional: true},
		Operation{Method: "GET", Pattern: "/collections/{collectionId}/spaces", ID: "listSpacesInCollectionById", Tag: "collections",
			Summary: "Spaces directly in a collection.", Query: pageParams, Status: 200, Response: model.SpaceList{}},
		Operation{Method: "POST", Pattern: "/collections/{collectionId}/move", ID: "moveCollection", Tag: "collections",
			Summary: "Move a collection to another parent or position.", Body: model.MoveContentInput{}, Status: 200, Response: model.Collection{}},
		Operation{Method: "POST", Pattern: "/collections/{collectionId}/transfer", ID: "transferCollection", Tag: "collections",
			Summary: "Transfer a collection with everything under it to another organization.", Body: model.TransferContentInput{}, Status: 200, Response: model.Collection{}},
	)
}
