package model

type FontSource struct {
	URL    string  `json:"url"`
	Format *string `json:"format,omitempty"`
}

type FontFace struct {
	Weight  int           `json:"weight"`
	Sources []*FontSource `json:"sources"`
}

type CustomizationFontDefinitionPermissions struct {
	Edit bool `json:"edit"`
}

type CustomizationFontDefinition struct {
	ID          string                                 `json:"id"`
	Custom      bool                                   `json:"custom"`
	FontFamily  string                                 `json:"fontFamily"`
	FontFaces   []*FontFace                            `json:"fontFaces"`
	Permissions CustomizationFontDefinitionPermissions `json:"permissions"`
}

type CustomizationFontDefinitionList List[*CustomizationFontDefinition]

type CustomFontFaceInput struct {
	Weight     int    `json:"weight"`
	StorageKey string `json:"storageKey"`
}

type CreateCustomFontInput struct {
	FontFamily string                 `json:"fontFamily"`
	FontFaces  []*CustomFontFaceInput `json:"fontFaces"`
}

// UpdateCustomFontFaceInput: a null StorageKey removes the weight.
type UpdateCustomFontFaceInput struct {
	Weight     int     `json:"weight"`
	StorageKey *string `json:"storageKey"`
}

type UpdateCustomFontInput struct {
	FontFamily *string                      `json:"fontFamily,omitempty"`
	FontFaces  []*UpdateCustomFontFaceInput `json:"fontFaces,omitempty"`
}
