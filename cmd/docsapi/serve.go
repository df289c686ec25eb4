package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"docsapi/auth"
	"docsapi/delivery"
	"docsapi/gitsync"
	"docsapi/graph"
	"docsapi/importer"
	"docsapi/openapi"
	"docsapi/sample"
	"docsapi/server"
	"docsapi/storage"
	"docsapi/translate"
)

func serve(args []string) error {
	f := newFlags("serve")
	addr := f.String("addr", "127.0.0.1:8080", "listen address")
	dbPath := f.DB()
	publicURL := f.String("public-url", "", "external base URL used in urls fields and SSO service URLs (default http://ADDR)")
	allowPrivate := f.Bool("allow-private-fetch", false, "let server-side fetches reach loopback and private addresses")
	translateURL := f.String("translate-url", "", "LibreTranslate-compatible translation server URL")
	translateKey := f.String("translate-key", "", "API key of the translation server")
	maxBody := f.Int64("max-body-bytes", 10<<20, "largest accepted request body")
	uploadMax := f.Int64("upload-max-bytes", graph.DefaultUploadMaxBytes, "largest file an upload URL (generateStorageUploadURL) takes")
	logLevel := f.String("log-level", "info", "debug, info, warn or error")
	metricsAddr := f.String("metrics-addr", "", "serve /metrics on this address only (default: on the main listener)")
	rateLimit := f.Int("rate-limit", 6000, "requests per --rate-limit-window of one token (0: no limit)")
	rateLimitAnon := f.Int("rate-limit-anonymous", 1200, "requests per --rate-limit-window of one client address without a valid token (0: no limit)")
	rateWindow := f.Duration("rate-limit-window", time.Minute, "window of the rate limits")
	clientIPHeader := f.String("client-ip-header", "", "header in which a trusted reverse proxy gives the client address (X-Forwarded-For, X-Real-IP)")
	corsOrigins := f.String("cors-origins", "", "comma-separated browser origins allowed to call /v1 and /graphql (* for any; empty: CORS off)")
	gqlComplexity := f.Int("graphql-max-complexity", 10000, "largest GraphQL operation cost: each field 1 plus its selection, times its limit for a list (0: no limit)")
	gqlDepth := f.Int("graphql-max-depth", 15, "deepest GraphQL selection nesting (0: no limit)")
	gqlConcurrency := f.Int("graphql-resolver-concurrency", 16, "resolvers one GraphQL operation runs at once (0: no limit)")
	gqlDocBytes := f.Int("graphql-max-document-bytes", server.DefaultGraphQLMaxDocumentBytes, "largest GraphQL document (query text) in bytes, refused before parsing (0: no limit)")
	gqlTokens := f.Int("graphql-max-tokens", server.DefaultGraphQLMaxTokens, "most lexical tokens in one GraphQL document; the parser stops there (0: no limit)")
	gqlNesting := f.Int("graphql-max-nesting", server.DefaultGraphQLMaxNesting, "deepest nesting of {, [ and ( in a GraphQL document, checked before parsing (0: no limit, and a deep enough document overflows the parser's stack)")
	gqlFields := f.Int("graphql-max-fields", server.DefaultGraphQLMaxFields, "most fields in one GraphQL document, fragments counted at each use, checked before validation (0: no limit)")
	gqlAliases := f.Int("graphql-max-aliases", server.DefaultGraphQLMaxAliases, "most aliased fields in one GraphQL document, fragments counted at each use (0: no limit)")
	gqlPairs := f.Int("graphql-max-field-pairs", server.DefaultGraphQLMaxFieldPairs, "most pairs of fields sharing a response key (a repeated field, the same field in several fragments) and of fragments spread together in one GraphQL document, which validation compares pairwise; checked before validation, with --graphql-max-fields (0: no limit)")
	gqlErrors := f.Int("graphql-max-errors", server.DefaultGraphQLMaxErrors, "most errors listed in one GraphQL answer; the rest are summed up in one more (0: no limit)")
	gqlIntrospection := f.Bool("graphql-introspection", true, "answer GraphQL introspection queries")
	gqlPlayground := f.Bool("graphql-playground", true, "serve the GraphQL playground page at /graphql")
	gqlPersistedFile := f.String("graphql-persisted-queries", "", "Apollo persisted query manifest (JSON) of GraphQL documents registered ahead: clients may send their hash alone")
	gqlPersistedOnly := f.Bool("graphql-persisted-only", false, "run only the registered GraphQL documents (--graphql-persisted-queries, docsapi admin persisted-queries); refuse every other")
	gqlSubsPerConn := f.Int("graphql-subscriptions-per-connection", graph.DefaultLiveLimits.PerConnection, "GraphQL subscriptions one WebSocket connection runs at once")
	gqlSubsPerToken := f.Int("graphql-subscriptions-per-token", graph.DefaultLiveLimits.PerToken, "GraphQL subscriptions one token runs at once, over all its connections")
	gqlKeepAlive := f.Duration("graphql-keepalive", server.DefaultLiveKeepAlive, "how often a subscription connection is pinged (WebSocket: a client missing two pongs is disconnected)")
	importMaxPages := f.Int("import-max-pages", importer.DefaultLimits.MaxPages, "pages one website import converts")
	importMaxImages := f.Int("import-max-images", importer.DefaultLimits.MaxImages, "images one import (html, website) fetches")
	importTimeout := f.Duration("import-timeout", importer.DefaultLimits.Timeout, "time one website crawl may take")
	importMaxDownload := f.Int64("import-max-download", server.DefaultImportMaxDownload, "bytes one import downloads (a zip archive, a page, an image)")
	importMaxFiles := f.Int("import-max-files", importer.DefaultLimits.MaxFiles, "files (and folders) one zip archive or repository import holds")
	importMaxUnpacked := f.Int64("import-max-unpacked", importer.DefaultLimits.MaxBytes, "bytes the files of one zip archive or repository import hold unpacked")
	gcPercent := f.Int("gc-percent", 400, "Go garbage collector target (GOGC): heap growth in percent before a collection; the GOGC environment variable, when set, wins")
	jobLease := f.Duration("job-lease", storage.JobLease, "how long a claim on background work (OpenAPI processing, translation runs) holds without renewal: a stopped replica's work resumes elsewhere after it")
	auditRetention := f.Int("audit-retention", 365, "days audit log entries are kept before the purge worker deletes them (0: for ever)")
	webhookRetention := f.Int("webhook-delivery-retention", 30, "days finished webhook deliveries (succeeded or failed) are kept after their last attempt before the purge worker deletes them (0: for ever)")
	siteTokenTTL := f.Duration("site-token-ttl", time.Hour, "lifetime of the apiToken a published URL's resolution hands a renderer")
	webhookGrace := f.Duration("webhook-secret-grace", 24*time.Hour, "how long a rotated-out webhook secret keeps signing deliveries beside the new one")
	webhookMaxEndpoints := f.Int("webhook-max-endpoints", storage.DefaultWebhookLimits.Endpoints, "webhooks one organization may have")
	webhookMaxPending := f.Int("webhook-max-pending", storage.DefaultWebhookLimits.Pending, "webhook deliveries one organization may have queued; events beyond are recorded as failed deliveries, not sent")
	webhookOrgConcurrency := f.Int("webhook-org-concurrency", delivery.DefaultWebhookPolicy.PerOrganization, "webhook delivery attempts of one organization in flight at once (of 16)")
	webhookTimeout := f.Duration("webhook-timeout", delivery.DefaultWebhookPolicy.Timeout, "deadline of one webhook delivery attempt")
	translationRuns := f.Int("translation-runs", translate.DefaultRuns, "translation runs at once, at most one per organization")
	translationRunTimeout := f.Duration("translation-run-timeout", translate.DefaultRunTimeout, "deadline of one translation run (it fails past it)")
	gitMaxBytes := f.Int64("git-sync-max-bytes", gitsync.DefaultLimits.MaxBytes, "bytes a Git Sync operation may receive from the Git server, and read of the ref's files")
	gitMaxFiles := f.Int("git-sync-max-files", gitsync.DefaultLimits.MaxFiles, "files a Git Sync operation reads or writes under the project directory")
	gitTimeout := f.Duration("git-sync-timeout", gitsync.DefaultLimits.Timeout, "time one Git Sync import or export may take (it fails past it)")
	translateTimeout := f.Duration("translate-timeout", translate.DefaultCallTimeout, "deadline of one request to the translation server")
	scriptMax := f.Int("integration-max-script-bytes", graph.DefaultIntegrationMaxScriptBytes, "largest integration script a publication may carry (bytes)")
	configDepth := f.Int("installation-config-max-depth", graph.DefaultConfigurationMaxDepth, "deepest nesting of an installation's configuration")
	configKeys := f.Int("installation-config-max-keys", graph.DefaultConfigurationMaxKeys, "keys and array items an installation's configuration may hold, all levels together")
	importBatch := f.Int("import-batch-pages", storage.DefaultImportBatchPages, "pages an import or a translation run stores per write transaction before one short write publishes them; other writes run between (0: the whole import in one transaction)")
	groupCommit := f.Bool("group-commit", true, "commit the writes that queue for the single writer together, one durable COMMIT for the batch, each write in its own savepoint (false: one COMMIT per write)")
	openAPIWorkers := f.Int("openapi-workers", openapi.DefaultWorkers, "OpenAPI specs processed at once (one organization takes at most all but one of them)")
	openAPIJobTimeout := f.Duration("openapi-job-timeout", openapi.DefaultJobTimeout, "time one OpenAPI processing run (fetch, parse, validate) may take before it is recorded as failed")
	renderCacheBytes := f.Int("render-cache-bytes", graph.DefaultRenderCacheBytes, "bytes each of the caches of rendered PDFs and computed OpenAPI pages holds (0: no caching)")
	pprofAddr := f.String("pprof-addr", "", "serve Go profiles (net/http/pprof) on this address, e.g. 127.0.0.1:6060; off when empty")
	withSample := f.Bool("sample", true, "on the first start (empty database), also make a published \"Getting started\" sample space and site")
	// Process-wide bounds: memory, request time, shutdown time.
	memoryLimit := f.String("memory-limit", "auto", "Go soft memory limit (GOMEMLIMIT): the heap is collected harder near it and memory above it handed back to the system; auto (1GiB, or half of the container's or machine's memory when less), off, or a size such as 2GiB; the GOMEMLIMIT environment variable, when set, wins")
	requestTimeout := f.Duration("request-timeout", 60*time.Second, "longest a request may run (imports and GraphQL: this plus --import-timeout); past it the request's work is cancelled and the client gets a 503")
	shutdownTimeout := f.Duration("shutdown-timeout", 30*time.Second, "on SIGTERM or SIGINT, how long in-flight requests may finish; the process exits when it has passed, whatever still runs")
	if err := f.Parse(args); err != nil {
		return err
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		// Requests allocate a little and keep almost nothing: collecting
		// less often saves about a tenth of the CPU of a cached read, for
		// a heap that grows to five times the live data instead of twice.
		debug.SetGCPercent(*gcPercent)
	}
	memLimit, memLimitSource, err := applyMemoryLimit(*memoryLimit)
	if err != nil {
		return err
	}
	if *requestTimeout <= 0 || *shutdownTimeout <= 0 {
		return errors.New("--request-timeout and --shutdown-timeout must be positive")
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	// The log is buffered (a request's line costs no system call) and
	// flushed every 100 ms and on return, after everything else has stopped.
	logOut := server.NewLogWriter(os.Stderr, 100*time.Millisecond)
	defer logOut.Close()
	log := slog.New(slog.NewJSONHandler(logOut, &slog.HandlerOptions{Level: level}))

	var persisted *server.PersistedQueries
	if *gqlPersistedFile != "" {
		p, err := server.LoadPersistedQueries(*gqlPersistedFile, *gqlDocBytes)
		if err != nil {
			return fmt.Errorf("--graphql-persisted-queries: %w", err)
		}
		p.Only, persisted = *gqlPersistedOnly, p
	} else if *gqlPersistedOnly {
		persisted = server.NewPersistedQueries(true) // the documents registered in the database only
	}

	cfg := server.Config{
		GraphQLPersisted: persisted,
		Addr:             *addr, DBPath: *dbPath, PublicURL: *publicURL, AllowPrivateFetch: *allowPrivate,
		TranslateURL: *translateURL, TranslateKey: *translateKey, MaxBodyBytes: *maxBody, UploadMaxBytes: *uploadMax,
		Version: version, Build: build(),
		MetricsAddr: *metricsAddr, RateLimit: *rateLimit, RateLimitAnonymous: *rateLimitAnon, RateLimitWindow: *rateWindow,
		ClientIPHeader: *clientIPHeader, CORSOrigins: list(*corsOrigins),
		GraphQLComplexity: *gqlComplexity, GraphQLDepth: *gqlDepth, GraphQLConcurrency: *gqlConcurrency,
		GraphQLLimits: server.GraphQLLimits{DocumentBytes: *gqlDocBytes, Tokens: *gqlTokens, Nesting: *gqlNesting,
			Fields: *gqlFields, Aliases: *gqlAliases, FieldPairs: *gqlPairs, Errors: *gqlErrors},
		NoIntrospection: !*gqlIntrospection, NoPlayground: !*gqlPlayground,
		ImportMaxPages: *importMaxPages, ImportMaxImages: *importMaxImages, ImportTimeout: *importTimeout,
		ImportMaxDownload: *importMaxDownload, ImportMaxFiles: *importMaxFiles, ImportMaxUnpacked: *importMaxUnpacked,
		AuditRetention:           time.Duration(*auditRetention) * 24 * time.Hour,
		WebhookSecretGrace:       *webhookGrace,
		SiteTokenTTL:             *siteTokenTTL,
		WebhookDeliveryRetention: time.Duration(*webhookRetention) * 24 * time.Hour,
		RequestTimeout:           *requestTimeout,
		OpenAPIWorkers:           *openAPIWorkers,
		OpenAPIJobTimeout:        *openAPIJobTimeout,
		RenderCacheBytes:         *renderCacheBytes,
		WebhookMaxEndpoints:      *webhookMaxEndpoints, WebhookMaxPending: *webhookMaxPending,
		WebhookOrgConcurrency: *webhookOrgConcurrency, WebhookTimeout: *webhookTimeout,
		TranslationRuns: *translationRuns, TranslationRunTimeout: *translationRunTimeout, TranslateTimeout: *translateTimeout,
		IntegrationMaxScriptBytes: *scriptMax, ConfigurationMaxDepth: *configDepth, ConfigurationMaxKeys: *configKeys,
		GitSyncLimits:                     gitsync.Limits{MaxPackBytes: *gitMaxBytes, MaxBytes: *gitMaxBytes, MaxFiles: *gitMaxFiles, Timeout: *gitTimeout},
		GraphQLSubscriptionsPerConnection: *gqlSubsPerConn, GraphQLSubscriptionsPerToken: *gqlSubsPerToken, GraphQLKeepAlive: *gqlKeepAlive,
	}
	if *gitMaxBytes < 1 || *gitMaxFiles < 1 || *gitTimeout <= 0 {
		return errors.New("--git-sync-max-bytes and --git-sync-max-files must be at least 1 and --git-sync-timeout positive")
	}
	if *gqlSubsPerConn < 1 || *gqlSubsPerToken < 1 || *gqlKeepAlive <= 0 {
		return errors.New("--graphql-subscriptions-per-connection, --graphql-subscriptions-per-token and --graphql-keepalive must be positive")
	}
	if cfg.RenderCacheBytes == 0 {
		cfg.RenderCacheBytes = -1 // the flag's 0 turns caching off
	}
	if *openAPIWorkers < 1 || *openAPIJobTimeout <= 0 || *renderCacheBytes < 0 {
		return errors.New("--openapi-workers must be at least 1, --openapi-job-timeout positive and --render-cache-bytes at least 0")
	}
	if l := cfg.GraphQLLimits; l.DocumentBytes < 0 || l.Tokens < 0 || l.Nesting < 0 || l.Fields < 0 || l.Aliases < 0 || l.FieldPairs < 0 || l.Errors < 0 {
		return errors.New("--graphql-max-document-bytes, --graphql-max-tokens, --graphql-max-nesting, --graphql-max-fields, --graphql-max-aliases, --graphql-max-field-pairs and --graphql-max-errors must be 0 (no limit) or positive")
	}
	if *auditRetention < 0 {
		return errors.New("--audit-retention must be 0 (keep for ever) or a number of days")
	}
	if *webhookRetention < 0 {
		return errors.New("--webhook-delivery-retention must be 0 (keep for ever) or a number of days")
	}
	if cfg.WebhookMaxEndpoints < 1 || cfg.WebhookMaxPending < 1 || cfg.WebhookOrgConcurrency < 1 || cfg.WebhookTimeout <= 0 {
		return errors.New("--webhook-max-endpoints, --webhook-max-pending and --webhook-org-concurrency must be at least 1 and --webhook-timeout positive")
	}
	if cfg.TranslationRuns < 1 || cfg.TranslationRunTimeout <= 0 || cfg.TranslateTimeout <= 0 {
		return errors.New("--translation-runs must be at least 1, --translation-run-timeout and --translate-timeout positive")
	}
	if cfg.IntegrationMaxScriptBytes < 1 || cfg.ConfigurationMaxDepth < 1 || cfg.ConfigurationMaxKeys < 1 {
		return errors.New("--integration-max-script-bytes, --installation-config-max-depth and --installation-config-max-keys must be at least 1")
	}
	if cfg.WebhookSecretGrace <= 0 {
		return errors.New("--webhook-secret-grace must be positive")
	}
	if cfg.ImportMaxPages < 1 || cfg.ImportMaxImages < 1 || cfg.ImportTimeout <= 0 {
		return errors.New("--import-max-pages and --import-max-images must be at least 1 and --import-timeout positive")
	}
	if cfg.ImportMaxDownload < 1 || cfg.ImportMaxFiles < 1 || cfg.ImportMaxUnpacked < 1 {
		return errors.New("--import-max-download, --import-max-files and --import-max-unpacked must be at least 1")
	}
	if cfg.PublicURL == "" {
		cfg.PublicURL = "http://" + cfg.Addr
	}
	// A --db docsapi cannot serve fails before anything else happens.
	if err := storage.CheckTarget(cfg.DBPath); err != nil {
		return err
	}
	redacted := "(unset)"
	if cfg.TranslateKey != "" {
		redacted = "(set, redacted)"
	}
	fmt.Printf("docsapi %s (%s)\n  addr=%s db=%s public-url=%s allow-private-fetch=%t translate-url=%q translate-key=%s max-body-bytes=%d log-level=%s\n",
		cfg.Version, cfg.Build, cfg.Addr, storage.Redact(cfg.DBPath), cfg.PublicURL, cfg.AllowPrivateFetch, cfg.TranslateURL, redacted, cfg.MaxBodyBytes, level)
	fmt.Printf("  metrics-addr=%q rate-limit=%d rate-limit-anonymous=%d rate-limit-window=%s client-ip-header=%q cors-origins=%q\n",
		cfg.MetricsAddr, cfg.RateLimit, cfg.RateLimitAnonymous, cfg.RateLimitWindow, cfg.ClientIPHeader, strings.Join(cfg.CORSOrigins, ","))
	fmt.Printf("  graphql-max-complexity=%d graphql-max-depth=%d graphql-resolver-concurrency=%d graphql-introspection=%t graphql-playground=%t\n",
		cfg.GraphQLComplexity, cfg.GraphQLDepth, cfg.GraphQLConcurrency, !cfg.NoIntrospection, !cfg.NoPlayground)
	fmt.Printf("  graphql-max-document-bytes=%d graphql-max-tokens=%d graphql-max-nesting=%d graphql-max-fields=%d graphql-max-aliases=%d graphql-max-field-pairs=%d graphql-max-errors=%d\n",
		cfg.GraphQLLimits.DocumentBytes, cfg.GraphQLLimits.Tokens, cfg.GraphQLLimits.Nesting, cfg.GraphQLLimits.Fields, cfg.GraphQLLimits.Aliases, cfg.GraphQLLimits.FieldPairs, cfg.GraphQLLimits.Errors)
	fmt.Printf("  import-max-pages=%d import-max-images=%d import-timeout=%s job-lease=%s audit-retention=%d webhook-delivery-retention=%d group-commit=%t import-batch-pages=%d\n", cfg.ImportMaxPages, cfg.ImportMaxImages, cfg.ImportTimeout, *jobLease, *auditRetention, *webhookRetention, *groupCommit, *importBatch)
	fmt.Printf("  openapi-workers=%d openapi-job-timeout=%s render-cache-bytes=%d\n", *openAPIWorkers, *openAPIJobTimeout, *renderCacheBytes)
	fmt.Printf("  memory-limit=%s (%s) request-timeout=%s shutdown-timeout=%s\n", formatBytes(memLimit), memLimitSource, cfg.RequestTimeout, *shutdownTimeout)

	if *jobLease < time.Second {
		return fmt.Errorf("--job-lease: at least 1s (renewed every quarter of it)")
	}
	if *importBatch < 0 {
		return fmt.Errorf("--import-batch-pages: 0 or more")
	}
	batch := *importBatch
	if batch == 0 {
		batch = -1 // storage.Options: 0 takes the default, < 0 one transaction
	}
	db, err := storage.Open(cfg.DBPath, storage.Options{JobLease: *jobLease, NoGroupCommit: !*groupCommit, ImportBatchPages: batch})
	if err != nil {
		return err
	}
	defer db.Close()
	first, err := firstStart(db)
	if err != nil {
		return err
	}

	srv := server.New(cfg, db, log)
	if first != nil && *withSample {
		made, err := sample.Create(context.Background(), srv.Resolver, first.Organization.ID, first.User.ID)
		if err != nil {
			return err
		}
		fmt.Printf("  sample:       space %q published as a site at %s (--sample=false to start without)\n", "Getting started", made.Published)
	}
	if *pprofAddr != "" {
		if err := servePprof(*pprofAddr); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	httpSrv := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	workers := srv.StartWorkers(ctx)

	errc := make(chan error, 2)
	go func() { errc <- httpSrv.Serve(ln) }()
	fmt.Printf("listening on http://%s (REST under /v1, GraphQL at /graphql)\n", ln.Addr())
	if cfg.MetricsAddr != "" {
		mln, err := net.Listen("tcp", cfg.MetricsAddr)
		if err != nil {
			return fmt.Errorf("--metrics-addr: %w", err)
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", srv.Metrics.Handler())
		metricsSrv := &http.Server{Handler: server.NoSniff(mux), ReadHeaderTimeout: 10 * time.Second}
		defer metricsSrv.Close()
		go func() { errc <- metricsSrv.Serve(mln) }()
		fmt.Printf("metrics on http://%s/metrics\n", mln.Addr())
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing in-flight requests", "timeout", shutdownTimeout.String())
	exitAfter(*shutdownTimeout, log, logOut)
	// The graceful part ends a little before the hard exit, so that the
	// workers and the database close in order when requests do finish.
	shutdownCtx, cancel := context.WithTimeout(context.Background(), *shutdownTimeout-min(*shutdownTimeout/10, 2*time.Second))
	defer cancel()
	err = httpSrv.Shutdown(shutdownCtx)
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		// Requests still running past the graceful part: their contexts end
		// with their connections.
		httpSrv.Close()
		err = fmt.Errorf("shutdown: requests still running after %s were cut off", *shutdownTimeout)
	} else {
		err = nil
	}
	workers.Wait()
	return err
}

// exitAfter ends the process once d has passed, or at a second signal,
// whatever still runs: a request or worker that ignores its context (a
// CPU-bound parse, a write stuck behind one) must not keep a stopping
// process alive past its shutdown timeout (the orchestrator would SIGKILL it
// without the log's last lines).
func exitAfter(d time.Duration, log *slog.Logger, logOut *server.LogWriter) {
	again := make(chan os.Signal, 1)
	signal.Notify(again, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-time.After(d):
			log.Error("shutdown timeout passed with work still running: exiting", "timeout", d.String())
		case <-again:
			log.Error("second signal during shutdown: exiting")
		}
		logOut.Flush()
		os.Exit(1)
	}()
}

// firstStart creates an organization, an admin and a token when the database
// has no user yet, and prints them once; it returns what it created (nil on
// a database that had users).
func firstStart(db *storage.DB) (*storage.Bootstrap, error) {
	n, err := db.CountUsers(context.Background())
	if err != nil || n > 0 {
		return nil, err
	}
	secret, hash := auth.NewToken()
	b, err := db.CreateOrganizationWithAdmin(context.Background(), "My Organization", "admin@localhost", "Admin", hash)
	if err != nil {
		return nil, err
	}
	fmt.Printf(`first start: created an organization and its admin
  organization: %s (%s)
  admin user:   %s <%s>
  API token:    %s
  The token is shown only now; use it as "Authorization: Bearer <token>".
`, b.Organization.ID, b.Organization.Title, b.User.ID, b.User.Email, secret)
	return &b, nil
}

// servePprof serves the runtime profiles on their own listener, never on the
// API's: they reveal internals and must stay on a private address.
func servePprof(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--pprof-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	fmt.Printf("profiles on http://%s/debug/pprof/\n", ln.Addr())
	go http.Serve(ln, mux)
	return nil
}
