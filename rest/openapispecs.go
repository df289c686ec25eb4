package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"docsapi/graph/model"
)

func init() { register(mountOpenAPI) }

func mountOpenAPI(a *API, r chi.Router) {
	const spec = "/orgs/{organizationId}/openapi/{specSlug}"
	org := func(r *http.Request) string { return path(r, "organizationId") }
	slug := func(r *http.Request) string { return path(r, "specSlug") }

	r.Get("/orgs/{organizationId}/openapi", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.OpenAPISpecs(r.Context(), org(r), page, limit)
	}))
	r.Post("/orgs/{organizationId}/openapi", a.created(func(r *http.Request) (any, error) {
		var in model.CreateOpenAPISpecInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.CreateOpenAPISpec(r.Context(), org(r), in)
	}))
	get := func(r *http.Request) (any, error) { return a.Q.OpenAPISpec(r.Context(), org(r), slug(r)) }
	r.Get(spec, a.resource(get))
	// PUT answers 201 when it created the spec and 200 when it updated it.
	r.Put(spec, a.ifMatch(get, func(w http.ResponseWriter, r *http.Request) {
		var in model.PutOpenAPISpecInput
		if err := decode(r, &in, bodyRequired); err != nil {
			WriteError(w, r, a.Log, err)
			return
		}
		res, err := a.M.PutOpenAPISpec(r.Context(), org(r), slug(r), in)
		if err != nil {
			WriteError(w, r, a.Log, err)
			return
		}
		if res.Created {
			w.Header().Set("Location", res.Spec.Urls.Location)
			WriteJSON(w, http.StatusCreated, res.Spec)
			return
		}
		WriteJSON(w, http.StatusOK, res.Spec)
	}))
	r.Patch(spec, a.ifMatch(get, a.ok(func(r *http.Request) (any, error) {
		var in model.UpdateOpenAPISpecInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.UpdateOpenAPISpec(r.Context(), org(r), slug(r), in)
	})))
	r.Delete(spec, a.ifMatch(get, a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		return a.M.DeleteOpenAPISpec(r.Context(), org(r), slug(r))
	})))

	r.Get(spec+"/versions", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.OpenAPISpecVersions(r.Context(), org(r), slug(r), page, limit)
	}))
	// "latest" is a fixed segment: chi matches it before {versionId}.
	r.Get(spec+"/versions/latest", a.ok(func(r *http.Request) (any, error) {
		return a.Q.OpenAPISpecVersion(r.Context(), org(r), slug(r), nil)
	}))
	r.Get(spec+"/versions/latest/content", a.ok(func(r *http.Request) (any, error) {
		return a.Q.OpenAPISpecVersionContent(r.Context(), org(r), slug(r), nil)
	}))
	r.Get(spec+"/versions/{versionId}", a.ok(func(r *http.Request) (any, error) {
		id := path(r, "versionId")
		return a.Q.OpenAPISpecVersion(r.Context(), org(r), slug(r), &id)
	}))
	r.Get(spec+"/versions/{versionId}/content", a.ok(func(r *http.Request) (any, error) {
		id := path(r, "versionId")
		return a.Q.OpenAPISpecVersionContent(r.Context(), org(r), slug(r), &id)
	}))
	// The document as received: the `url` of a version (docsapi addition).
	r.Get(spec+"/versions/{versionId}/raw", func(w http.ResponseWriter, r *http.Request) {
		id := path(r, "versionId")
		doc, err := a.Q.OpenAPISpecVersionDocument(r.Context(), org(r), slug(r), &id)
		if err != nil {
			WriteError(w, r, a.Log, err)
			return
		}
		w.Header().Set("Content-Type", doc.ContentType)
		w.Write([]byte(doc.Text))
	})
}
