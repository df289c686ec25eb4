package rest

import (
	"docsapi/graph/model"
)

// Declarations of the routes in translations.go for the served API description.

func init() {
	declareEnum[model.TranslationStatus](model.TranslationStatuses.List())
	declareEnum[model.TranslationLanguage](model.TranslationLanguages.List())
	const one = "/orgs/{organizationId}/translations/{translationId}"
	describe(
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/translations", ID: "listTranslations", Tag: "translations",
			Summary: "Translations of an organization, oldest first (read role).", Query: pageParams, Status: 200, Response: model.TranslationList{}},
		Operation{Method: "POST", Pattern: "/orgs/{organizationId}/translations", ID: "createTranslation", Tag: "translations",
			Summary: "Create a translation of a space the caller can read and queue its first run (create role).", Body: model.CreateTranslationInput{}, Status: 201, Response: model.Translation{}},
		Operation{Method: "GET", Pattern: one, ID: "getTranslation", Tag: "translations",
			Summary: "A translation: status of its latest run, result and measured stats.", Status: 200, Response: model.Translation{}, Conditional: true},
		Operation{Method: "PUT", Pattern: one, ID: "updateTranslation", Tag: "translations",
			Summary: "Replace a translation's instructions (create role).", Body: model.UpdateTranslationInput{}, Status: 200, Response: model.Translation{}, Conditional: true},
		Operation{Method: "DELETE", Pattern: one, ID: "deleteTranslation", Tag: "translations",
			Summary: "Delete a translation (create role); its target space stays.", Status: 205, Conditional: true},
		Operation{Method: "POST", Pattern: one + "/run", ID: "runTranslation", Tag: "translations",
			Summary: "docsapi addition: queue a run of the translation (create role); 202, the run happens in the background.", Status: 202, Response: model.Translation{}},
	)
}
