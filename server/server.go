// Package server assembles docsapi's HTTP surface: middleware, the /v1 REST
// routes, GraphQL and its playground, health checks and published keys.
package server

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/delivery"
	"docsapi/fetch"
	"docsapi/gitsync"
	"docsapi/graph"
	"docsapi/graph/generated"
	"docsapi/importer"
	"docsapi/metrics"
	"docsapi/playground"
	"docsapi/rest"
	"docsapi/site"
	"docsapi/storage"
	"docsapi/translate"
)

// Config is the server's deployment configuration.
type Config struct {
	Addr              string
	DBPath            string
	PublicURL         string
	AllowPrivateFetch bool
	TranslateURL      string
	TranslateKey      string
	MaxBodyBytes      int64
	// UploadMaxBytes is the largest file an upload URL takes (a PUT to
	// /uploads/ may be that large; every other body MaxBodyBytes).
	UploadMaxBytes int64
	// MetricsAddr, when set, is where `docsapi serve` serves /metrics on a
	// listener of its own; the main handler then has no /metrics.
	MetricsAddr string
	// RateLimit is the requests per RateLimitWindow of one token, and
	// RateLimitAnonymous those of one client address for requests without
	// a valid token; 0 turns a limit off. The window defaults to a minute.
	RateLimit          int
	RateLimitAnonymous int
	RateLimitWindow    time.Duration
	// ClientIPHeader names the header a trusted reverse proxy sets to the
	// client's address (X-Forwarded-For, X-Real-IP); empty: the peer address.
	ClientIPHeader string
	// CORSOrigins are the browser origins allowed to call /v1 and /graphql
	// ("*" for any); empty turns CORS off.
	CORSOrigins []string
	// GraphQL guardrails; 0 turns a limit off.
	GraphQLComplexity  int           // largest operation complexity (each field counts 1)
	GraphQLDepth       int           // deepest selection nesting
	GraphQLConcurrency int           // resolvers running at once in one operation
	GraphQLLimits      GraphQLLimits // bounds of a document before it is parsed and validated
	// GraphQLPersisted are the registered documents (nil: none); with
	// Only set, no other document runs (graphqlpersisted.go).
	GraphQLPersisted *PersistedQueries
	NoIntrospection  bool // refuse __schema and __type queries
	NoPlayground     bool // do not serve the playground page
	Version          string
	Build            string
	// Clock replaces time.Now (tests of retention and expiry).
	Clock func() time.Time
	// Website imports: pages converted and images imported per import, and
	// the time one crawl may take; 0 takes importer.DefaultLimits.
	ImportMaxPages  int
	ImportMaxImages int
	ImportTimeout   time.Duration
	// Zip and repository imports: bytes one import downloads, files and
	// unpacked bytes one archive or repository holds; 0 takes
	// DefaultImportMaxDownload and importer.DefaultLimits.
	ImportMaxDownload int64
	ImportMaxFiles    int
	ImportMaxUnpacked int64
	// AuditRetention is how long audit log entries are kept (`serve`
	// defaults to 365 days); 0 keeps them for ever.
	AuditRetention time.Duration
	// WebhookDeliveryRetention is how long finished webhook deliveries
	// (succeeded or failed) are kept after their last attempt (`serve`
	// defaults to 30 days); 0 keeps them for ever.
	WebhookDeliveryRetention time.Duration
	// Outbound sends requests to integration runtimes (development tunnels);
	// nil means the guarded fetcher (package fetch) honouring AllowPrivateFetch.
	Outbound delivery.Doer
	// WebhookSecretGrace is how long a webhook's rotated-out secret keeps
	// signing deliveries beside the new one (0: 24 hours).
	WebhookSecretGrace time.Duration
	// OpenAPIWorkers is how many OpenAPI specs are processed at once (0:
	// openapi.DefaultWorkers), OpenAPIJobTimeout how long one run may take
	// (0: openapi.DefaultJobTimeout).
	OpenAPIWorkers    int
	OpenAPIJobTimeout time.Duration
	// RenderCacheBytes bounds each of the caches of rendered PDFs and
	// computed pages (0: graph.DefaultRenderCacheBytes; negative: none).
	RenderCacheBytes int
	// Fair sharing of the webhook outbox (0: storage.DefaultWebhookLimits,
	// delivery.DefaultWebhookPolicy): webhooks per organization, deliveries
	// one organization may have queued, attempts of one organization in
	// flight, and the deadline of one attempt.
	WebhookMaxEndpoints   int
	WebhookMaxPending     int
	WebhookOrgConcurrency int
	WebhookTimeout        time.Duration
	// Translation runs (0: the translate package's defaults): runs at once
	// (one per organization), the deadline of one run and of one request
	// to the translation server.
	TranslationRuns       int
	TranslationRunTimeout time.Duration
	TranslateTimeout      time.Duration
	// Bounds of what integrations store (0: graph's Default* values): a
	// published script's bytes, an installation configuration's depth and
	// its keys and array items.
	IntegrationMaxScriptBytes int
	ConfigurationMaxDepth     int
	ConfigurationMaxKeys      int
	// GitSyncLimits bound one Git Sync operation (zero fields: gitsync.DefaultLimits).
	GitSyncLimits gitsync.Limits
	// RequestTimeout ends every request's context after it (imports and
	// GraphQL: after it plus ImportTimeout); 0 means 60 seconds.
	RequestTimeout time.Duration
	// SiteTokenTTL is the lifetime of the apiToken of a published URL's
	// resolution (0: one hour).
	SiteTokenTTL time.Duration
	// SharePasswordCost is bcrypt's work factor for share link passwords
	// (0: graph.DefaultSharePasswordCost; tests lower it).
	SharePasswordCost int
	// GraphQL subscriptions (live.go; 0: graph.DefaultLiveLimits and
	// DefaultLiveKeepAlive): subscriptions one connection and one token
	// run at once, and the keepalive interval.
	GraphQLSubscriptionsPerConnection int
	GraphQLSubscriptionsPerToken      int
	GraphQLKeepAlive                  time.Duration
}

// Server is a configured docsapi HTTP handler over one database.
type Server struct {
	Config   Config
	DB       *storage.DB
	Resolver *graph.Resolver
	Log      *slog.Logger
	Router   chi.Router
	queues   queues
	// Metrics is the Prometheus registry; families add their background
	// queue gauges to it (see package metrics).
	Metrics *metrics.Registry

	limits limiters

	translationsOnce sync.Once
	translations     *translate.Runner

	gitSyncOnce sync.Once // Git Sync worker (gitsync.go)
	gitSync     *graph.GitSyncWorker

	fastGQL *fastGraphQL // answers the hottest GraphQL reads (graphqlfast.go)
}

// ImportFetchLimits bound every request of a content import (a website
// crawl makes one per page and image, within its own overall time limit).
func ImportFetchLimits(allowPrivate bool) fetch.Options {
	return fetch.Options{AllowPrivate: allowPrivate, MaxBytes: DefaultImportMaxDownload, Timeout: 20 * time.Second, MaxRedirects: 5, UserAgent: "docsapi-import/1"}
}

// DefaultImportMaxDownload bounds one download of an import: a zip of a
// documentation repository with its images (600 assets, 130 MiB) fits.
const DefaultImportMaxDownload = 256 << 20

// importFetchOptions are ImportFetchLimits with the deployment's download bound.
func importFetchOptions(cfg Config) fetch.Options {
	o := ImportFetchLimits(cfg.AllowPrivateFetch)
	if cfg.ImportMaxDownload > 0 {
		o.MaxBytes = cfg.ImportMaxDownload
	}
	return o
}

// New wires the resolvers, REST routes and GraphQL over db.
func New(cfg Config, db *storage.DB, log *slog.Logger) *Server {
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 10 << 20
	}
	if cfg.UploadMaxBytes <= 0 {
		cfg.UploadMaxBytes = graph.DefaultUploadMaxBytes
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = time.Minute
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	res := &graph.Resolver{
		Store: db,
		Auth:  auth.NewAuthenticator(db, cfg.Clock),
		Config: graph.Config{PublicURL: cfg.PublicURL, Version: cfg.Version, Build: cfg.Build, WebhookSecretGrace: cfg.WebhookSecretGrace,
			UploadMaxBytes: cfg.UploadMaxBytes, RenderCacheBytes: cfg.RenderCacheBytes, SiteTokenTTL: cfg.SiteTokenTTL, SharePasswordCost: cfg.SharePasswordCost,
			IntegrationMaxScriptBytes: cfg.IntegrationMaxScriptBytes, ConfigurationMaxDepth: cfg.ConfigurationMaxDepth, ConfigurationMaxKeys: cfg.ConfigurationMaxKeys},
		Now:    cfg.Clock,
		Signer: graph.NewSigner(db),
		// Imports fetch through the guard: private addresses only with --allow-private-fetch.
		Fetcher: importer.Guarded{F: fetch.New(importFetchOptions(cfg)),
			Limits: importer.Limits{MaxPages: cfg.ImportMaxPages, MaxImages: cfg.ImportMaxImages, Timeout: cfg.ImportTimeout,
				MaxFiles: cfg.ImportMaxFiles, MaxBytes: cfg.ImportMaxUnpacked}},
	}
	res.Auth.AcceptSiteTokens(res.SiteTokenCaller)
	if cfg.Outbound == nil {
		// Deliveries and renders reach integration tunnels through the same
		// guard as every other server-side request.
		cfg.Outbound = fetch.New(fetch.Options{AllowPrivate: cfg.AllowPrivateFetch, Timeout: 15 * time.Second, MaxBytes: 4 << 20})
	}
	res.Deliveries = delivery.NewWorker(db, cfg.Outbound, cfg.Clock, log)
	// Webhook deliveries leave through the same guarded Doer; a commit that
	// queued some wakes their worker.
	res.Webhooks = delivery.NewWebhookWorker(db, cfg.Outbound, cfg.Clock, log)
	db.SetWebhookLimits(storage.WebhookLimits{Endpoints: cfg.WebhookMaxEndpoints, Pending: cfg.WebhookMaxPending})
	if cfg.WebhookOrgConcurrency > 0 {
		res.Webhooks.Policy.PerOrganization = cfg.WebhookOrgConcurrency
	}
	if cfg.WebhookTimeout > 0 {
		res.Webhooks.Policy.Timeout = cfg.WebhookTimeout
	}
	db.OnWebhooksQueued(res.Webhooks.Notify)
	db.OnTargetRemoved(res.TargetRemovedEvent)
	db.OnSpaceLeavesSites(graph.SpaceLeavesSite)
	s := &Server{Config: cfg, DB: db, Resolver: res, Log: log, Metrics: metrics.New(), limits: newLimiters(cfg)}
	res.Wake = s.Wake
	db.ObserveWrites(s.Metrics.ObserveWrite)
	db.ObserveBatches(s.Metrics.ObserveBatch)
	db.SetActorSource(s.actorOf)
	s.Metrics.ObservePools(func() map[string]sql.DBStats {
		w, r := db.Stats()
		return map[string]sql.DBStats{"write": w, "read": r}
	})
	s.startLive()
	s.Router = s.routes()
	return s
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.Router.ServeHTTP(w, r) }

func (s *Server) routes() chi.Router {
	r := chi.NewRouter()
	r.Use(NoSniff, s.requestDeadline, requestID, s.observeRequests, s.recoverPanics, s.corsHandler(), s.limitBody, s.identify, s.rateLimit, shareLinkPassword, headAsGet)
	// Paths the service does not route may be a published site's (the
	// reader site answers them, else the API's 404). The root too: at a
	// site's own hostname it is the site's first page; anywhere else it is
	// the service's own answer (version, build, where to go next).
	api := rest.New(s.Resolver, s.Log)
	reader := site.New(s.Resolver, s.Log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			api.ServeRoot(w, r)
			return
		}
		rest.NotFound(w, r)
	}))
	api.AppSignIn = reader.CompleteSAMLSignIn
	r.NotFound(reader.ServeHTTP)
	r.Get("/", reader.ServeHTTP)
	r.MethodNotAllowed(rest.MethodNotAllowed)

	r.Get("/healthz", func(w http.ResponseWriter, r *http.Request) {
		rest.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	r.Get("/readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := s.DB.Ping(ctx); err != nil {
			// The driver's words name the database's host, user and name:
			// the log has them, the unauthenticated answer does not.
			s.Log.Warn("readyz: database unavailable", "error", err)
			w.Header().Set("Retry-After", strconv.Itoa(storage.UnavailableRetryAfter))
			rest.WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "error": "the database is unavailable"})
			return
		}
		rest.WriteJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	})
	r.Get("/.well-known/jwks.json", func(w http.ResponseWriter, r *http.Request) {
		set, err := s.Resolver.Signer.JWKS(r.Context())
		if err != nil {
			rest.WriteError(w, r, s.Log, err)
			return
		}
		rest.WriteJSON(w, http.StatusOK, set)
	})

	if s.Config.MetricsAddr == "" {
		r.Method(http.MethodGet, "/metrics", s.Metrics.Handler())
	}

	gql := s.graphQLHandler()
	play := playground.Page()
	r.Route("/graphql", func(r chi.Router) {
		if !s.Config.NoPlayground {
			// The playground's own files (GraphiQL, React): embedded, no token.
			r.Get("/assets/*", playground.Assets().ServeHTTP)
		}
		// A browser asking for a page gets the playground (no token needed to
		// load it; its requests carry the token typed into its token field).
		r.With(func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !s.Config.NoPlayground && r.Method == http.MethodGet && strings.Contains(r.Header.Get("Accept"), "text/html") && r.URL.Query().Get("query") == "" {
					play.ServeHTTP(w, r)
					return
				}
				next.ServeHTTP(w, r)
			})
		}, s.liveConnection(s.authenticateGraphQL)).Handle("/", gql)
	})

	// File downloads work with a signed link or the caller's bearer token,
	// so they sit outside /v1's mandatory authentication.
	r.Get("/files/{spaceId}/{revisionId}/{fileId}/{name}", api.DownloadFile(s.Resolver.Auth))
	// SAML logins happen in a browser, before any token exists.
	r.Route("/sso", api.MountSSO)
	api.MountPublic(r)
	r.Route("/v1", func(r chi.Router) {
		r.Use(s.authenticate)
		r.NotFound(rest.NotFound)
		r.MethodNotAllowed(rest.MethodNotAllowed)
		api.Mount(r)
	})
	return r
}

func (s *Server) graphQLHandler() http.Handler {
	h := handler.New(generated.NewExecutableSchema(generated.Config{Resolvers: s.Resolver}))
	// Subscriptions (live.go) first: SSE is a POST the POST transport would take.
	if !gqlgenWebsocketOnly {
		h.AddTransport(sharingTransport{s.liveWebsocketTransport()}) // graphql-transport-ws (livews.go)
	}
	h.AddTransport(sharingTransport{s.websocketTransport()}) // the older graphql-ws
	h.AddTransport(sharingTransport{transport.SSE{KeepAlivePingInterval: cmp.Or(s.Config.GraphQLKeepAlive, DefaultLiveKeepAlive)}})
	h.AddTransport(transport.Options{})
	h.AddTransport(transport.GET{})
	h.AddTransport(answerPOST{}) // the data as encoded, not re-scanned (graphqlanswer.go)
	h.AddTransport(transport.POST{})
	// Caches weighed by size, not counted (graphqlcache.go).
	known := newWeightedLRU(documentCacheBytes, largestCachedDocument, documentWeight)
	h.SetQueryCache(known)
	if !s.Config.NoIntrospection {
		h.Use(extension.Introspection{})
	}
	// Registered documents (the file's, the database's), before APQ (graphqlpersisted.go).
	persisted := s.Config.GraphQLPersisted.withStore(s.DB)
	h.Use(persisted)
	h.Use(extension.AutomaticPersistedQuery{Cache: newWeightedLRU(persistedQueryBytes, largestPersistedQuery, textWeight)})
	bounds := &documentBounds{limits: s.Config.GraphQLLimits, known: known}
	s.guardGraphQL(h, bounds)
	h.SetErrorPresenter(s.presentGraphQLError)
	// Edges load each object once per operation (graph/edges.go).
	h.AroundOperations(func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		return next(graph.WithLoaders(ctx))
	})
	// Queries and mutations over a live transport keep the request deadline (live.go).
	h.AroundOperations(s.operationDeadline)
	// Read-only tokens: every mutation goes through graph.RequireWrite (the
	// same check as REST writes) before any of its resolvers runs.
	h.AroundOperations(func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		if oc := graphql.GetOperationContext(ctx); oc.Operation != nil && oc.Operation.Operation == ast.Mutation {
			if err := graph.RequireWrite(ctx); err != nil {
				return graphql.OneShot(&graphql.Response{Errors: gqlerror.List{s.presentGraphQLError(ctx, err)}})
			}
		}
		return next(ctx)
	})
	h.SetRecoverFunc(func(ctx context.Context, p any) error {
		s.Log.Error("panic in resolver", "request_id", middleware.GetReqID(ctx), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		return apierr.New(http.StatusInternalServerError, "internal error (request id %s)", middleware.GetReqID(ctx))
	})
	h.AroundOperations(newIntrospectionAnswers().around)
	// A subscription's shared execution reaching a caller's resolver is its
	// own (graph/livefanout.go); first, so it sees every field before the
	// writers below answer lists without running their fields.
	h.AroundFields(graph.LiveResolverUse)
	// Page trees of plain fields are written from the shared page models (graph/pagetree.go).
	h.AroundFields(graph.PlainPageTrees)
	// So are lists of other objects of plain fields (graph/plainobjects.go).
	h.AroundFields(graph.PlainObjects)
	s.fastGQL = newFastGraphQL(h, s.Resolver.Query(), s.presentGraphQLError, bounds)
	s.fastGQL.persisted = persisted
	h.AroundOperations(s.fastGQL.learn)
	return s.fastGQL
}

// presentGraphQLError presents an error and counts it in the metrics.
func (s *Server) presentGraphQLError(ctx context.Context, err error) *gqlerror.Error {
	gerr := presentError(ctx, err)
	code, _ := gerr.Extensions["code"].(string)
	s.Metrics.CountError("graphql", code)
	return gerr
}

// presentError gives GraphQL errors the same code and status as REST.
func presentError(ctx context.Context, err error) *gqlerror.Error {
	if e := apierr.Ended(ctx, err); e != nil {
		err = e // the server's request deadline passed: say so (as REST)
	}
	gerr := graphql.DefaultErrorPresenter(ctx, err)
	if e, ok := apierr.As(err); ok {
		gerr.Message = e.Message
		gerr.Extensions = map[string]any{"code": e.Code(), "status": e.Status}
		if e.Field != "" {
			gerr.Extensions["field"] = e.Field
		}
		if e.RetryAfter > 0 {
			gerr.Extensions["retryAfter"] = e.RetryAfter
		}
		return gerr
	}
	var already *gqlerror.Error
	if errors.As(err, &already) && already.Extensions != nil {
		return gerr // validation and parse errors keep gqlgen's own codes
	}
	gerr.Message = "internal error (request id " + middleware.GetReqID(ctx) + ")"
	gerr.Extensions = map[string]any{"code": "INTERNAL", "status": http.StatusInternalServerError}
	return gerr
}
