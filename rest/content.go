package rest

import (
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"docsapi/auth"
	"docsapi/graph/model"
)

func init() { register(mountContent) }

// contentReadArgs reads the metadata and computed flags every content read
// accepts (validated; metadata=false omits a revision's git commit).
func contentReadArgs(r *http.Request) (metadata, computed *bool, err error) {
	if metadata, err = qBool(r, "metadata"); err != nil {
		return
	}
	computed, err = qBool(r, "computed")
	return
}

// pageReadArgs adds format and evaluated.
func pageReadArgs(r *http.Request) (format *model.PageFormat, evaluated, metadata, computed *bool, err error) {
	format = qEnum[model.PageFormat](r, "format")
	if evaluated, err = qBool(r, "evaluated"); err != nil {
		return
	}
	metadata, computed, err = contentReadArgs(r)
	return
}

// crPrefix is the prefix of a change request's routes; its content routes
// mirror the space's and read the change request's head.
const crPrefix = "/spaces/{spaceId}/change-requests/{changeRequestId}"

// changeRequest is the change request a route is under (nil at space level).
func changeRequest(r *http.Request) *string { return optional(path(r, "changeRequestId")) }

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func mountContent(a *API, r chi.Router) {
	revision := func(r *http.Request) (any, error) {
		metadata, computed, err := contentReadArgs(r)
		if err != nil {
			return nil, err
		}
		return a.Q.SpaceContent(r.Context(), path(r, "spaceId"), optional(path(r, "revisionId")), changeRequest(r), metadata, computed)
	}
	r.Get("/spaces/{spaceId}/content", a.ok(revision))
	r.Get(crPrefix+"/content", a.ok(revision))
	r.Get("/spaces/{spaceId}/revisions/{revisionId}", a.ok(revision))

	pages := func(r *http.Request) (any, error) {
		metadata, computed, err := contentReadArgs(r)
		if err != nil {
			return nil, err
		}
		return a.Q.SpacePages(r.Context(), path(r, "spaceId"), optional(path(r, "revisionId")), changeRequest(r), metadata, computed)
	}
	r.Get("/spaces/{spaceId}/content/pages", a.ok(pages))
	r.Get(crPrefix+"/content/pages", a.ok(pages))
	r.Get("/spaces/{spaceId}/revisions/{revisionId}/pages", a.ok(pages))

	page := func(byPath bool) handler {
		return func(r *http.Request) (any, error) {
			format, evaluated, metadata, computed, err := pageReadArgs(r)
			if err != nil {
				return nil, err
			}
			var id, p *string
			if byPath {
				v, err := wildcardPath(r)
				if err != nil {
					return nil, err
				}
				p = &v
			} else {
				id = optional(path(r, "pageId"))
			}
			return a.Q.SpacePage(r.Context(), path(r, "spaceId"), id, p, optional(path(r, "revisionId")), changeRequest(r), format, evaluated, metadata, computed)
		}
	}
	r.Get("/spaces/{spaceId}/content/page/{pageId}", a.ok(page(false)))
	r.Get(crPrefix+"/content/page/{pageId}", a.ok(page(false)))
	r.Get("/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}", a.ok(page(false)))
	r.Get("/spaces/{spaceId}/content/path/*", a.ok(page(true)))
	r.Get(crPrefix+"/content/path/*", a.ok(page(true)))
	r.Get("/spaces/{spaceId}/revisions/{revisionId}/path/*", a.ok(page(true)))

	files := func(r *http.Request) (any, error) {
		pg, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		if _, _, err := contentReadArgs(r); err != nil {
			return nil, err
		}
		return a.Q.SpaceFiles(r.Context(), path(r, "spaceId"), optional(path(r, "revisionId")), changeRequest(r), pg, limit)
	}
	r.Get("/spaces/{spaceId}/content/files", a.ok(files))
	r.Get(crPrefix+"/content/files", a.ok(files))
	r.Get("/spaces/{spaceId}/revisions/{revisionId}/files", a.ok(files))

	file := func(r *http.Request) (any, error) {
		if _, _, err := contentReadArgs(r); err != nil {
			return nil, err
		}
		return a.Q.SpaceFile(r.Context(), path(r, "spaceId"), path(r, "fileId"), optional(path(r, "revisionId")), changeRequest(r))
	}
	r.Get("/spaces/{spaceId}/content/files/{fileId}", a.ok(file))
	r.Get(crPrefix+"/content/files/{fileId}", a.ok(file))
	r.Get("/spaces/{spaceId}/revisions/{revisionId}/files/{fileId}", a.ok(file))

	fileBacklinks := func(r *http.Request) (any, error) {
		pg, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.SpaceFileBacklinks(r.Context(), path(r, "spaceId"), path(r, "fileId"), changeRequest(r), pg, limit)
	}
	r.Get("/spaces/{spaceId}/content/files/{fileId}/backlinks", a.ok(fileBacklinks))
	r.Get(crPrefix+"/content/files/{fileId}/backlinks", a.ok(fileBacklinks))
	pageBacklinks := func(r *http.Request) (any, error) {
		pg, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.SpacePageBacklinks(r.Context(), path(r, "spaceId"), path(r, "pageId"), changeRequest(r), pg, limit)
	}
	r.Get("/spaces/{spaceId}/content/page/{pageId}/backlinks", a.ok(pageBacklinks))
	r.Get(crPrefix+"/content/page/{pageId}/backlinks", a.ok(pageBacklinks))

	links := func(r *http.Request) (any, error) {
		pg, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.SpaceLinks(r.Context(), path(r, "spaceId"), optional(path(r, "pageId")), changeRequest(r), pg, limit, qEnum[model.LinkStatus](r, "status"))
	}
	r.Get("/spaces/{spaceId}/links", a.ok(links))
	r.Get("/spaces/{spaceId}/content/page/{pageId}/links", a.ok(links))
	r.Get(crPrefix+"/content/page/{pageId}/links", a.ok(links))

	// Imports answer 201 with a Location naming the new revision.
	importer := func(w http.ResponseWriter, r *http.Request) {
		var in model.ImportContentInput
		err := decode(r, &in, bodyRequired)
		var res *model.ImportContentResult
		if err == nil {
			res, err = a.M.ImportContent(r.Context(), path(r, "spaceId"), changeRequest(r), optional(path(r, "pageId")), in)
		}
		if err != nil {
			WriteError(w, r, a.Log, err)
			return
		}
		w.Header().Set("Location", a.Resolver.Config.PublicURL+"/v1/spaces/"+path(r, "spaceId")+"/revisions/"+res.Revision)
		WriteJSON(w, http.StatusCreated, res)
	}
	r.Post("/spaces/{spaceId}/content/import", importer)
	r.Post("/spaces/{spaceId}/content/page/{pageId}/import", importer)
	r.Post(crPrefix+"/content/import", importer)
	r.Post(crPrefix+"/content/page/{pageId}/import", importer)

	r.Post("/spaces/{spaceId}/content/template", func(w http.ResponseWriter, r *http.Request) {
		var in model.ApplyTemplateInput
		err := decode(r, &in, bodyRequired)
		if err == nil {
			_, err = a.M.ApplyTemplate(r.Context(), path(r, "spaceId"), in)
		}
		if err != nil {
			WriteError(w, r, a.Log, err)
			return
		}
		w.WriteHeader(http.StatusCreated)
	})
}

// DownloadFile serves a file's bytes to a holder of a signed link (token
// query parameter) or to a caller whose bearer token may read the space.
func (a *API) DownloadFile(authn *auth.Authenticator) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		token := r.URL.Query().Get("token")
		if token == "" {
			c, err := authn.Authenticate(ctx, r.Header.Get("Authorization"))
			if err != nil {
				WriteError(w, r, a.Log, err)
				return
			}
			ctx = auth.WithCaller(ctx, c)
		}
		f, body, err := a.Resolver.FileDownload(ctx, path(r, "spaceId"), path(r, "revisionId"), path(r, "fileId"), token)
		if err != nil {
			WriteError(w, r, a.Log, err)
			return
		}
		w.Header().Set("Content-Type", f.ContentType)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Header().Set("X-Content-Type-Options", "nosniff")
		// Files are immutable (content-addressed), so caches may keep them.
		w.Header().Set("Cache-Control", "private, max-age=3600")
		if f.ContentType == "image/svg+xml" || f.ContentType == "text/html" {
			w.Header().Set("Content-Security-Policy", "sandbox")
		}
		w.Write(body)
	}
}
