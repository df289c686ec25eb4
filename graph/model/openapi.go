package model

import "io"

type OpenAPISpec struct {
	Object                  string                          `json:"object"`
	ID                      string                          `json:"id"`
	CreatedAt               string                          `json:"createdAt"`
	UpdatedAt               string                          `json:"updatedAt"`
	Slug                    string                          `json:"slug"`
	SourceURL               *string                         `json:"sourceURL,omitempty"`
	ProcessingState         OpenAPISpecProcessingState      `json:"processingState"`
	Visibility              *OpenAPISpecVisibility          `json:"visibility,omitempty"`
	LastVersion             *string                         `json:"lastVersion,omitempty"`
	LastProcessedAt         *string                         `json:"lastProcessedAt,omitempty"`
	LastProcessErrorCode    *OpenAPISpecProcessingErrorCode `json:"lastProcessErrorCode,omitempty"`
	LastProcessErrorMessage *string                         `json:"lastProcessErrorMessage,omitempty"`
	Permissions             OpenAPISpecPermissions          `json:"permissions"`
	Urls                    OpenAPISpecURLs                 `json:"urls"`
}

type OpenAPISpecPermissions struct {
	View   bool `json:"view"`
	Edit   bool `json:"edit"`
	Delete bool `json:"delete"`
}

type OpenAPISpecURLs struct {
	Location  string  `json:"location"`
	App       string  `json:"app"`
	Published *string `json:"published,omitempty"`
}

type OpenAPISpecList List[*OpenAPISpec]

type OpenAPISpecVersion struct {
	Object      string                 `json:"object"`
	ID          string                 `json:"id"`
	CreatedAt   string                 `json:"createdAt"`
	URL         string                 `json:"url"`
	Urls        OpenAPISpecVersionURLs `json:"urls"`
	Info        OpenAPISpecVersionInfo `json:"info"`
	Openapi     string                 `json:"openapi"`
	ContentHash string                 `json:"contentHash"`
}

type OpenAPISpecVersionInfo struct {
	Title   string `json:"title"`
	Version string `json:"version"`
}

type OpenAPISpecVersionURLs struct {
	Location string `json:"location"`
}

type OpenAPISpecVersionList List[*OpenAPISpecVersion]

type OpenAPISpecContent struct {
	Filesystem map[string]any `json:"filesystem"`
	URL        string         `json:"url"`
}

// OpenAPISpecDocument is a version's document as received (REST writes the
// text itself with its content type).
type OpenAPISpecDocument struct {
	ContentType string `json:"contentType"`
	Text        string `json:"text"`
}

// OpenAPISpecSourceInput: exactly one of URL and Text.
type OpenAPISpecSourceInput struct {
	URL  *string `json:"url,omitempty"`
	Text *string `json:"text,omitempty"`
}

type CreateOpenAPISpecInput struct {
	Slug   string                  `json:"slug"`
	Source *OpenAPISpecSourceInput `json:"source"`
}

type PutOpenAPISpecInput struct {
	Source *OpenAPISpecSourceInput `json:"source"`
}

type UpdateOpenAPISpecInput struct {
	Visibility OpenAPISpecVisibility `json:"visibility"`
}

type OpenAPISpecPutResult struct {
	Created bool         `json:"created"`
	Spec    *OpenAPISpec `json:"spec"`
}

// OpenAPISpecProcessingState is where a spec is in its processing.
type OpenAPISpecProcessingState string

var OpenAPISpecProcessingStates = newEnum[OpenAPISpecProcessingState]("pending", "progress", "complete")

func (v OpenAPISpecProcessingState) MarshalGQL(w io.Writer) {
	OpenAPISpecProcessingStates.marshal(w, v)
}
func (v *OpenAPISpecProcessingState) UnmarshalGQL(in any) error {
	return OpenAPISpecProcessingStates.unmarshal(in, v)
}
func (v OpenAPISpecProcessingState) IsValid() bool { return OpenAPISpecProcessingStates.valid[v] }

// OpenAPISpecVisibility is who may read a spec.
type OpenAPISpecVisibility string

var OpenAPISpecVisibilities = newEnum[OpenAPISpecVisibility]("private", "public")

func (v OpenAPISpecVisibility) MarshalGQL(w io.Writer) { OpenAPISpecVisibilities.marshal(w, v) }
func (v *OpenAPISpecVisibility) UnmarshalGQL(in any) error {
	return OpenAPISpecVisibilities.unmarshal(in, v)
}
func (v OpenAPISpecVisibility) IsValid() bool { return OpenAPISpecVisibilities.valid[v] }

// OpenAPISpecProcessingErrorCode is why the last processing failed.
type OpenAPISpecProcessingErrorCode string

var OpenAPISpecProcessingErrorCodes = newEnum[OpenAPISpecProcessingErrorCode]("FETCH_TIMEOUT", "FETCH_ERROR", "PARSE_ERROR")

func (v OpenAPISpecProcessingErrorCode) MarshalGQL(w io.Writer) {
	OpenAPISpecProcessingErrorCodes.marshal(w, v)
}
func (v *OpenAPISpecProcessingErrorCode) UnmarshalGQL(in any) error {
	return OpenAPISpecProcessingErrorCodes.unmarshal(in, v)
}
func (v OpenAPISpecProcessingErrorCode) IsValid() bool {
	return OpenAPISpecProcessingErrorCodes.valid[v]
}
