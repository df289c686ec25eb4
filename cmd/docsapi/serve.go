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
	"docsapi/importer"
	"docsapi/server"
	"docsapi/storage"
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
	logLevel := f.String("log-level", "info", "debug, info, warn or error")
	metricsAddr := f.String("metrics-addr", "", "serve /metrics on this address only (default: on the main listener)")
	rateLimit := f.Int("rate-limit", 6000, "requests per --rate-limit-window of one token (0: no limit)")
	rateLimitAnon := f.Int("rate-limit-anonymous", 1200, "requests per --rate-limit-window of one client address without a valid token (0: no limit)")
	rateWindow := f.Duration("rate-limit-window", time.Minute, "window of the rate limits")
	clientIPHeader := f.String("client-ip-header", "", "header in which a trusted reverse proxy gives the client address (X-Forwarded-For, X-Real-IP)")
	corsOrigins := f.String("cors-origins", "", "comma-separated browser origins allowed to call /v1 and /graphql (* for any; empty: CORS off)")
	gqlComplexity := f.Int("graphql-max-complexity", 1000, "largest GraphQL operation complexity (0: no limit)")
	gqlDepth := f.Int("graphql-max-depth", 15, "deepest GraphQL selection nesting (0: no limit)")
	gqlConcurrency := f.Int("graphql-resolver-concurrency", 16, "resolvers one GraphQL operation runs at once (0: no limit)")
	gqlIntrospection := f.Bool("graphql-introspection", true, "answer GraphQL introspection queries")
	gqlPlayground := f.Bool("graphql-playground", true, "serve the GraphQL playground page at /graphql")
	importMaxPages := f.Int("import-max-pages", importer.DefaultLimits.MaxPages, "pages one website import converts")
	importMaxImages := f.Int("import-max-images", importer.DefaultLimits.MaxImages, "images one import (html, website) fetches")
	importTimeout := f.Duration("import-timeout", importer.DefaultLimits.Timeout, "time one website crawl may take")
	gcPercent := f.Int("gc-percent", 400, "Go garbage collector target (GOGC): heap growth in percent before a collection; the GOGC environment variable, when set, wins")
	jobLease := f.Duration("job-lease", storage.JobLease, "how long a claim on background work (OpenAPI processing, translation runs) holds without renewal: a stopped replica's work resumes elsewhere after it")
	auditRetention := f.Int("audit-retention", 365, "days audit log entries are kept before the purge worker deletes them (0: for ever)")
	webhookRetention := f.Int("webhook-delivery-retention", 30, "days finished webhook deliveries (succeeded or failed) are kept after their last attempt before the purge worker deletes them (0: for ever)")
	siteTokenTTL := f.Duration("site-token-ttl", time.Hour, "lifetime of the apiToken a published URL's resolution hands a renderer")
	webhookGrace := f.Duration("webhook-secret-grace", 24*time.Hour, "how long a rotated-out webhook secret keeps signing deliveries beside the new one")
	groupCommit := f.Bool("group-commit", true, "commit the writes that queue for the single writer together, one durable COMMIT for the batch, each write in its own savepoint (false: one COMMIT per write)")
	pprofAddr := f.String("pprof-addr", "", "serve Go profiles (net/http/pprof) on this address, e.g. 127.0.0.1:6060; off when empty")
	if err := f.Parse(args); err != nil {
		return err
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		// Requests allocate a little and keep almost nothing: collecting
		// less often saves about a tenth of the CPU of a cached read, for
		// a heap that grows to five times the live data instead of twice.
		debug.SetGCPercent(*gcPercent)
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

	cfg := server.Config{
		Addr: *addr, DBPath: *dbPath, PublicURL: *publicURL, AllowPrivateFetch: *allowPrivate,
		TranslateURL: *translateURL, TranslateKey: *translateKey, MaxBodyBytes: *maxBody,
		Version: version, Build: build(),
		MetricsAddr: *metricsAddr, RateLimit: *rateLimit, RateLimitAnonymous: *rateLimitAnon, RateLimitWindow: *rateWindow,
		ClientIPHeader: *clientIPHeader, CORSOrigins: list(*corsOrigins),
		GraphQLComplexity: *gqlComplexity, GraphQLDepth: *gqlDepth, GraphQLConcurrency: *gqlConcurrency,
		NoIntrospection: !*gqlIntrospection, NoPlayground: !*gqlPlayground,
		ImportMaxPages: *importMaxPages, ImportMaxImages: *importMaxImages, ImportTimeout: *importTimeout,
		AuditRetention:           time.Duration(*auditRetention) * 24 * time.Hour,
		WebhookSecretGrace:       *webhookGrace,
		SiteTokenTTL:             *siteTokenTTL,
		WebhookDeliveryRetention: time.Duration(*webhookRetention) * 24 * time.Hour,
	}
	if *auditRetention < 0 {
		return errors.New("--audit-retention must be 0 (keep for ever) or a number of days")
	}
	if *webhookRetention < 0 {
		return errors.New("--webhook-delivery-retention must be 0 (keep for ever) or a number of days")
	}
	if cfg.WebhookSecretGrace <= 0 {
		return errors.New("--webhook-secret-grace must be positive")
	}
	if cfg.ImportMaxPages < 1 || cfg.ImportMaxImages < 1 || cfg.ImportTimeout <= 0 {
		return errors.New("--import-max-pages and --import-max-images must be at least 1 and --import-timeout positive")
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
	fmt.Printf("  import-max-pages=%d import-max-images=%d import-timeout=%s job-lease=%s audit-retention=%d webhook-delivery-retention=%d group-commit=%t\n", cfg.ImportMaxPages, cfg.ImportMaxImages, cfg.ImportTimeout, *jobLease, *auditRetention, *webhookRetention, *groupCommit)

	if *jobLease < time.Second {
		return fmt.Errorf("--job-lease: at least 1s (renewed every quarter of it)")
	}
	db, err := storage.Open(cfg.DBPath, storage.Options{JobLease: *jobLease, NoGroupCommit: !*groupCommit})
	if err != nil {
		return err
	}
	defer db.Close()
	if err := firstStart(db); err != nil {
		return err
	}

	srv := server.New(cfg, db, log)
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
	log.Info("shutting down: finishing in-flight requests")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = httpSrv.Shutdown(shutdownCtx)
	workers.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// firstStart creates an organization, an admin and a token when the database
// has no user yet, and prints them once.
func firstStart(db *storage.DB) error {
	n, err := db.CountUsers(context.Background())
	if err != nil || n > 0 {
		return err
	}
	secret, hash := auth.NewToken()
	b, err := db.CreateOrganizationWithAdmin(context.Background(), "My Organization", "admin@localhost", "Admin", hash)
	if err != nil {
		return err
	}
	fmt.Printf(`first start: created an organization and its admin
  organization: %s (%s)
  admin user:   %s <%s>
  API token:    %s
  The token is shown only now; use it as "Authorization: Bearer <token>".
`, b.Organization.ID, b.Organization.Title, b.User.ID, b.User.Email, secret)
	return nil
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
