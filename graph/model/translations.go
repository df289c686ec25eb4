package model

import "io"

// Translation is a standing translation of a space into another language.
type Translation struct {
	Object       string                 `json:"object"`
	ID           string                 `json:"id"`
	Status       TranslationStatus      `json:"status"`
	Source       TranslationSource      `json:"source"`
	Language     TranslationLanguage    `json:"language"`
	Instructions map[string]any         `json:"instructions"`
	Result       *TranslationResult     `json:"result,omitempty"`
	CreatedAt    string                 `json:"createdAt"`
	UpdatedAt    string                 `json:"updatedAt"`
	Stats        TranslationStats       `json:"stats"`
	Permissions  TranslationPermissions `json:"permissions"`
	Urls         TranslationURLs        `json:"urls"`
	// Error says why the latest run failed (docsapi addition).
	Error *TranslationError `json:"error,omitempty"`
}

type TranslationSource struct {
	Space    string              `json:"space"`
	Language TranslationLanguage `json:"language"`
}

type TranslationResult struct {
	Space    string `json:"space"`
	Revision string `json:"revision"`
}

// TranslationStats are measured by the runs: durations in whole seconds as
// the reference declares them, and in milliseconds (docsapi additions).
type TranslationStats struct {
	Runs                int `json:"runs"`
	TotalWords          int `json:"totalWords"`
	TotalPages          int `json:"totalPages"`
	TotalDuration       int `json:"totalDuration"`
	LatestRunDuration   int `json:"latestRunDuration"`
	LatestPages         int `json:"latestPages"`
	LatestWords         int `json:"latestWords"`
	TotalDurationMs     int `json:"totalDurationMs"`
	LatestRunDurationMs int `json:"latestRunDurationMs"`
}

type TranslationPermissions struct {
	View bool `json:"view"`
	Edit bool `json:"edit"`
}

type TranslationURLs struct {
	Location string `json:"location"`
}

type TranslationError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type TranslationList List[*Translation]

type TranslationSourceInput struct {
	Space    string              `json:"space"`
	Language TranslationLanguage `json:"language"`
}

type CreateTranslationInput struct {
	Source       *TranslationSourceInput `json:"source"`
	Language     TranslationLanguage     `json:"language"`
	Instructions map[string]any          `json:"instructions,omitempty"`
}

type UpdateTranslationInput struct {
	Instructions map[string]any `json:"instructions"`
}

// TranslationStatus is where a translation's latest run is.
type TranslationStatus string

var TranslationStatuses = newEnum[TranslationStatus]("pending", "running", "completed")

func (v TranslationStatus) MarshalGQL(w io.Writer)     { TranslationStatuses.marshal(w, v) }
func (v *TranslationStatus) UnmarshalGQL(in any) error { return TranslationStatuses.unmarshal(in, v) }
func (v TranslationStatus) IsValid() bool              { return TranslationStatuses.valid[v] }

// TranslationLanguage is one of the reference's 36 language codes.
type TranslationLanguage string

var TranslationLanguages = newEnum[TranslationLanguage]("en", "fr", "de", "es", "it", "pt", "ru", "ja", "zh", "ko",
	"ar", "hi", "nl", "pl", "tr", "sv", "no", "da", "fi", "el", "cs", "hu", "ro", "th", "vi", "id", "ms", "he", "uk",
	"sk", "bg", "hr", "lt", "lv", "et", "sl")

func (v TranslationLanguage) MarshalGQL(w io.Writer) { TranslationLanguages.marshal(w, v) }
func (v *TranslationLanguage) UnmarshalGQL(in any) error {
	return TranslationLanguages.unmarshal(in, v)
}
func (v TranslationLanguage) IsValid() bool { return TranslationLanguages.valid[v] }
