// Package rest is the thin /v1 layer: each route parses path, query and
// body, calls the resolver method of its operation, and writes the JSON and
// status the specification gives. No business rule lives here; refusals come
// from the resolvers, so REST and GraphQL refuse alike.
package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"docsapi/apierr"
	"docsapi/graph"
	"docsapi/graph/generated"
	"docsapi/graph/model"
)

// API holds the resolvers the routes call.
type API struct {
	Resolver *graph.Resolver
	Q        generated.QueryResolver
	M        generated.MutationResolver
	Log      *slog.Logger
	// AppSignIn, when set, takes SAML answers whose RelayState is a member
	// app-view sign-in's (sso.RelayPrefix): the reader site gives the
	// session to the browser that started it.
	AppSignIn func(w http.ResponseWriter, r *http.Request, providerID, samlResponse, relayState string)

	writeLocks writeLocks             // see ifMatch
	keyLocks   keyLocks               // see idempotent
	openAPI    openAPIDoc             // see serveOpenAPI
	answers    AnswerCache[answerKey] // see storedResource
}

func New(res *graph.Resolver, log *slog.Logger) *API {
	return &API{Resolver: res, Q: res.Query(), M: res.Mutation(), Log: log}
}

// families is every resource family's route mounter; each family file adds
// itself in init, so families never edit a shared list.
var families []func(a *API, r chi.Router)

func register(mount func(a *API, r chi.Router)) { families = append(families, mount) }

// publicFamilies mount routes outside /v1 that need no token (integration
// assets).
var publicFamilies []func(a *API, r chi.Router)

func registerPublic(mount func(a *API, r chi.Router)) { publicFamilies = append(publicFamilies, mount) }

// MountPublic adds the token-less routes to the root router.
func (a *API) MountPublic(r chi.Router) {
	for _, mount := range publicFamilies {
		mount(a, r)
	}
}

// Mount adds every /v1 route to r (r is already under /v1 and
// authenticated). Idempotency-Key applies to every POST and PUT by method,
// so families never opt in.
func (a *API) Mount(r chi.Router) {
	r.Use(refuseReadOnlyWrites, a.idempotent)
	for _, mount := range families {
		mount(a, r)
	}
}

// refuseReadOnlyWrites sends every /v1 write (any method but GET and HEAD)
// through graph.RequireWrite, the one check of read-only tokens, before
// the route runs: no route opts in or can forget to.
func refuseReadOnlyWrites(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if err := graph.RequireWrite(r.Context()); err != nil {
				WriteError(w, r, nil, err)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// ---- writing answers ----

// WriteJSON writes v with status.
// Values that write their own JSON (model.JSONAppender: the large list
// pages) skip reflection; the bytes are the same as encoding/json's.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if a, ok := v.(model.JSONAppender); ok {
		bp := jsonBufs.Get().(*[]byte)
		b := append(a.AppendJSON((*bp)[:0]), '\n')
		w.Write(b)
		if cap(b) <= 1<<20 { // a rare huge page does not stay pinned
			*bp = b
			jsonBufs.Put(bp)
		}
		return
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

var jsonBufs = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// encodeJSON is the exact body WriteJSON writes for v.
func encodeJSON(v any) ([]byte, error) {
	if a, ok := v.(model.JSONAppender); ok {
		return append(a.AppendJSON(nil), '\n'), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return buf.Bytes(), err
}

// writeBody writes an encoded JSON body with status.
func writeBody(w http.ResponseWriter, status int, body []byte) {
	w.Header()["Content-Type"] = jsonContentType
	w.WriteHeader(status)
	w.Write(body)
}

// jsonContentType is the Content-Type header's value, one slice for every
// answer (Header.Set would allocate one per answer; nothing changes it in
// place: Add appends to a copy, the server copies the header to write it).
var jsonContentType = []string{"application/json"}

type errorBody struct {
	Error struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// WriteError writes any error as the API's error body. Errors that are not
// *apierr.Error are internal: logged with the request id, answered as 500.
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	var body errorBody
	if e := apierr.Ended(r.Context(), err); e != nil {
		err = e // the server's request deadline passed: say so
	}
	if e, ok := apierr.As(err); ok {
		body.Error.Code, body.Error.Message = e.Status, e.Message
		switch {
		case e.Status == http.StatusUnauthorized && e.Challenge != "":
			w.Header().Set("WWW-Authenticate", e.Challenge)
		case e.Status == http.StatusUnauthorized:
			Challenge(w, r, e.Message)
		}
		if e.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
		}
	} else {
		reqID := middleware.GetReqID(r.Context())
		if r.Context().Err() != nil && errors.Is(err, r.Context().Err()) {
			// The client went away (or timed out) mid-request: not a server
			// fault, and nobody reads the answer.
			if log != nil {
				log.Info("request abandoned by the client", "request_id", reqID, "method", r.Method, "path", r.URL.Path, "error", err)
			}
			w.WriteHeader(499) // nginx's "client closed request", for the request log only
			return
		}
		if log != nil {
			log.Error("internal error", "request_id", reqID, "method", r.Method, "path", r.URL.Path, "error", err)
		}
		body.Error.Code, body.Error.Message = http.StatusInternalServerError, "internal error (request id "+reqID+")"
	}
	WriteJSON(w, body.Error.Code, body)
}

// Challenge sets the WWW-Authenticate header of a 401 (RFC 6750): `Bearer`
// when no token was sent, with error="invalid_token" and the reason when
// one was sent and refused (unknown, revoked, expired).
func Challenge(w http.ResponseWriter, r *http.Request, reason string) {
	if r.Header.Get("Authorization") == "" {
		w.Header().Set("WWW-Authenticate", "Bearer")
		return
	}
	reason = strings.Map(func(c rune) rune {
		if c == '"' || c == '\\' || c < 0x20 || c > 0x7e {
			return -1
		}
		return c
	}, reason)
	w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", error_description="`+reason+`"`)
}

// handler is the shape of every route: it returns the value to write, or an
// error to write as the error body.
type handler func(r *http.Request) (any, error)

// ok answers 200 with the handler's value.
func (a *API) ok(h handler) http.HandlerFunc { return a.status(http.StatusOK, h) }

// created answers 201 with the handler's value, and a Location header when
// the value's API location is known.
func (a *API) created(h handler) http.HandlerFunc { return a.status(http.StatusCreated, h) }

func (a *API) status(code int, h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, err := call(r, h)
		if err != nil {
			WriteError(w, r, a.Log, err)
			return
		}
		if code == http.StatusCreated {
			if loc := locationOf(v); loc != "" {
				w.Header().Set("Location", loc)
			}
		}
		if code == http.StatusOK && wantsETag(r) {
			body, err := encodeJSON(v)
			if err != nil {
				WriteError(w, r, a.Log, err)
				return
			}
			w.Header().Set("ETag", etagOf(body))
			writeBody(w, code, body)
			return
		}
		WriteJSON(w, code, v)
	}
}

// located is a created resource that knows its urls.location: the
// Location header then costs no JSON round trip (a tenth of a space
// create's CPU outside the write went to encoding and decoding the body
// for it).
type located interface{ APILocation() string }

// locationOf finds urls.location on a created resource: from the resource
// when it is located, else via its JSON.
func locationOf(v any) string {
	if l, ok := v.(located); ok {
		return l.APILocation()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	var probe struct {
		Urls struct {
			Location string `json:"location"`
		} `json:"urls"`
	}
	json.Unmarshal(b, &probe)
	return probe.Urls.Location
}

// deleted answers 205 when something was deleted and 204 when the target
// did not exist, as the published interface declares for deletes.
func (a *API) deleted(h func(r *http.Request) (*model.DeleteResult, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		res, err := call(r, h)
		if err != nil {
			WriteError(w, r, a.Log, err)
			return
		}
		if res.Deleted {
			w.WriteHeader(http.StatusResetContent)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

// noContent answers 204 on success.
func (a *API) noContent(h func(r *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if _, err := call(r, func(r *http.Request) (any, error) { return nil, h(r) }); err != nil {
			WriteError(w, r, a.Log, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

// ---- reading requests ----

// call runs a route's handler once the query string is known to be well
// formed (net/url silently drops malformed pairs such as "page=%%").
func call[T any](r *http.Request, h func(r *http.Request) (T, error)) (T, error) {
	if _, err := url.ParseQuery(r.URL.RawQuery); err != nil {
		var zero T
		return zero, apierr.New(http.StatusBadRequest, "query: malformed query string")
	}
	return h(r)
}

// bodyRule says whether an operation's body may be omitted.
type bodyRule int

const (
	bodyRequired bodyRule = iota
	bodyOptional
)

// decode reads a JSON body into dst. A body must be declared as JSON; a
// missing body is refused unless optional; malformed JSON and wrong types
// are 400s that name the field.
func decode(r *http.Request, dst any, rule bodyRule) error {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return apierr.New(http.StatusRequestEntityTooLarge, "request body is larger than %d bytes", tooLarge.Limit)
		}
		if errors.Is(err, os.ErrDeadlineExceeded) { // the server's request deadline covers reading the body
			return apierr.New(http.StatusRequestTimeout, "the request body did not arrive within the server's time limit")
		}
		return apierr.New(http.StatusBadRequest, "could not read the request body")
	}
	if len(strings.TrimSpace(string(raw))) == 0 {
		if rule == bodyOptional {
			return nil
		}
		return apierr.Invalid("body", "a JSON object is required")
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return apierr.New(http.StatusBadRequest, "Content-Type must be application/json (got %q)", ct)
		}
	} else {
		return apierr.New(http.StatusBadRequest, "Content-Type must be application/json")
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return jsonError(err)
	}
	return nil
}

// jsonError turns a decoding error into a 400 that names the field.
func jsonError(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	if e, ok := apierr.As(err); ok { // a model type's own UnmarshalJSON refusal
		return e
	}
	switch {
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			return apierr.New(http.StatusBadRequest, "body: must be a JSON object")
		}
		return apierr.Invalid(field, "must be %s, not %s", jsonKind(typeErr.Type.String()), typeErr.Value)
	case errors.As(err, &syntaxErr):
		return apierr.New(http.StatusBadRequest, "body: malformed JSON at byte %d", syntaxErr.Offset)
	default:
		return apierr.New(http.StatusBadRequest, "body: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
}

// jsonKind names the JSON kind a Go type decodes from. Containers first:
// "[]string" and "map[string]any" mention string too.
func jsonKind(goType string) string {
	goType = strings.TrimLeft(goType, "*")
	switch {
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	case strings.HasPrefix(goType, "map"), strings.HasPrefix(goType, "struct"), strings.Contains(goType, "Input"):
		return "an object"
	case strings.Contains(goType, "string"), strings.Contains(goType, "Role"), strings.HasPrefix(goType, "model."):
		return "a string"
	case strings.Contains(goType, "bool"):
		return "a boolean"
	case strings.Contains(goType, "int"), strings.Contains(goType, "float"):
		return "a number"
	}
	return "of type " + goType
}

// path returns a path parameter.
func path(r *http.Request, name string) string { return chi.URLParam(r, name) }

// qStr returns an optional query parameter.
func qStr(r *http.Request, name string) *string {
	q := r.URL.Query()
	if !q.Has(name) {
		return nil
	}
	v := q.Get(name)
	return &v
}

// qInt parses an optional whole-number query parameter.
func qInt(r *http.Request, name string) (*int, error) {
	s := qStr(r, name)
	if s == nil {
		return nil, nil
	}
	f, err := strconv.ParseFloat(*s, 64)
	if err != nil || f != float64(int(f)) {
		return nil, apierr.Invalid(name, "must be a whole number (got %q)", *s)
	}
	n := int(f)
	return &n, nil
}

// qBool parses an optional boolean query parameter.
func qBool(r *http.Request, name string) (*bool, error) {
	s := qStr(r, name)
	if s == nil {
		return nil, nil
	}
	b, err := strconv.ParseBool(*s)
	if err != nil {
		return nil, apierr.Invalid(name, "must be true or false (got %q)", *s)
	}
	return &b, nil
}

// qEnum reads an optional enum query parameter as its model type; the
// resolver validates the value.
func qEnum[T ~string](r *http.Request, name string) *T {
	s := qStr(r, name)
	if s == nil {
		return nil
	}
	v := T(*s)
	return &v
}

// paging reads the `page` and `limit` every list takes.
func paging(r *http.Request) (page *string, limit *int, err error) {
	limit, err = qInt(r, "limit")
	return qStr(r, "page"), limit, err
}

// NotFound and MethodNotAllowed answer unknown routes with the error body.
func NotFound(w http.ResponseWriter, r *http.Request) {
	// An unknown path matched no route: drop the mount's wildcard pattern
	// ("/v1/*") so the metrics label it "(none)", like every unrouted answer.
	if rc := chi.RouteContext(r.Context()); rc != nil {
		rc.RoutePatterns = rc.RoutePatterns[:0]
	}
	WriteError(w, r, nil, apierr.New(http.StatusNotFound, "no route %s %s", r.Method, r.URL.Path))
}

func MethodNotAllowed(w http.ResponseWriter, r *http.Request) {
	WriteError(w, r, nil, apierr.New(http.StatusMethodNotAllowed, "method %s is not allowed on %s", r.Method, r.URL.Path))
}
