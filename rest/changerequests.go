package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"docsapi/graph/model"
)

func init() {
	register(mountChangeRequests)
	// PDF links are signed: they work without a token (a browser opens them).
	registerPublic(func(a *API, r chi.Router) { r.Get("/pdf/{spaceId}/{revisionId}", a.downloadPDF) })
}

func mountChangeRequests(a *API, r chi.Router) {
	r.Get("/spaces/{spaceId}/change-requests", a.ok(func(r *http.Request) (any, error) {
		pg, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.ChangeRequests(r.Context(), path(r, "spaceId"), qEnum[model.ChangeRequestStatus](r, "status"), qStr(r, "contributor"), pg, limit)
	}))
	r.Post("/spaces/{spaceId}/change-requests", a.created(func(r *http.Request) (any, error) {
		var in model.CreateChangeRequestInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.CreateChangeRequest(r.Context(), path(r, "spaceId"), in)
	}))
	getChangeRequest := func(r *http.Request) (any, error) {
		return a.Q.ChangeRequest(r.Context(), path(r, "spaceId"), path(r, "changeRequestId"))
	}
	r.Get(crPrefix, a.resource(getChangeRequest))
	r.Patch(crPrefix, a.ifMatch(getChangeRequest, a.ok(func(r *http.Request) (any, error) {
		var in model.UpdateChangeRequestInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.UpdateChangeRequest(r.Context(), path(r, "spaceId"), path(r, "changeRequestId"), in)
	})))
	r.Post(crPrefix+"/merge", a.ok(func(r *http.Request) (any, error) {
		return a.M.MergeChangeRequest(r.Context(), path(r, "spaceId"), path(r, "changeRequestId"))
	}))
	r.Post(crPrefix+"/update", a.ok(func(r *http.Request) (any, error) {
		return a.M.UpdateChangeRequestFromMain(r.Context(), path(r, "spaceId"), path(r, "changeRequestId"))
	}))
	r.Get(crPrefix+"/pdf", a.ok(func(r *http.Request) (any, error) {
		only, err := qBool(r, "only")
		if err != nil {
			return nil, err
		}
		return a.Q.ChangeRequestPDF(r.Context(), path(r, "spaceId"), path(r, "changeRequestId"), qStr(r, "page"), only)
	}))
	r.Get("/spaces/{spaceId}/pdf", a.ok(func(r *http.Request) (any, error) {
		only, err := qBool(r, "only")
		if err != nil {
			return nil, err
		}
		return a.Q.SpacePDF(r.Context(), path(r, "spaceId"), qStr(r, "page"), only)
	}))
}

// downloadPDF renders and serves the PDF a signed link (GET .../pdf) names.
// The link itself is the credential: no bearer token is needed.
func (a *API) downloadPDF(w http.ResponseWriter, r *http.Request) {
	body, err := a.Resolver.RenderPDF(r.Context(), path(r, "spaceId"), path(r, "revisionId"), r.URL.Query().Get("token"))
	if err != nil {
		WriteError(w, r, a.Log, err)
		return
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", `inline; filename="content.pdf"`)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "private, max-age=3600")
	w.Write(body)
}
