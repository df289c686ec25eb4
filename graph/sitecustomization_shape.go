package graph

import (
	_ "embed"

	"docsapi/apierr"
	"docsapi/jsonshape"
)

// The 0.130.0 shapes of site customization: SiteCustomizationSettings and
// every schema it references, plus overrideSiteSpaceCustomizationById's
// inline request body as SiteSpaceCustomizationOverrides. The file is cut
// from @gitbook/api@0.130.0's openapi.json (TestCustomizationShapesFresh
// compares and, with DOCSAPI_UPDATE_SHAPES=1, rewrites it).
//
//go:embed sitecustomization_shapes.json
var customizationShapesJSON []byte

const overridesShape = "SiteSpaceCustomizationOverrides"

var customizationShapes = func() jsonshape.Set {
	set, err := jsonshape.Compile(customizationShapesJSON)
	if err != nil {
		panic("sitecustomization_shapes.json: " + err.Error())
	}
	return set
}()

// checkCustomizationShape is a 400 naming the field path when v is not of the named
// 0.130.0 shape.
func checkCustomizationShape(name string, v map[string]any) error {
	if err := jsonshape.Check(customizationShapes[name], "", v); err != nil {
		return apierr.Invalid(err.Path, "%s", err.Message)
	}
	return nil
}
