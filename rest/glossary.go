package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"docsapi/graph/model"
)

func init() { register(mountGlossary) }

func mountGlossary(a *API, r chi.Router) {
	const list = "/orgs/{organizationId}/translations-glossary"
	org := func(r *http.Request) string { return path(r, "organizationId") }

	r.Get(list, a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.GlossaryEntries(r.Context(), org(r), page, limit)
	}))
	r.Put(list, a.noContent(func(r *http.Request) error {
		var in model.UpdateGlossaryEntriesInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return err
		}
		_, err := a.M.UpdateGlossaryEntries(r.Context(), org(r), in)
		return err
	}))
	r.Get(list+"/{glossaryEntryId}", a.resource(func(r *http.Request) (any, error) {
		return a.Q.GlossaryEntry(r.Context(), org(r), path(r, "glossaryEntryId"))
	}))
}
