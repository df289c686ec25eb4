package server

import (
	"context"
	"net"
	"net/url"

	"docsapi/fetch"
	"docsapi/graph"
	"docsapi/translate"
)

func init() {
	RegisterWorker(func(ctx context.Context, s *Server) {
		s.TranslationRunner().Run(ctx, s.Wakeups(graph.QueueTranslations))
	})
}

// TranslateFetchLimits bound one request to the translation server (a
// batch of up to 20,000 characters): its answer to translate.MaxAnswer,
// its time to Config.TranslateTimeout (this Timeout when unset).
var TranslateFetchLimits = fetch.Options{MaxBytes: translate.MaxAnswer, Timeout: translate.DefaultCallTimeout, MaxRedirects: 2, UserAgent: "docsapi-translate/1"}

// translationProvider is the configured machine-translation provider; nil
// when --translate-url is not set (runs then fail with a message naming it).
func (s *Server) translationProvider() translate.Provider {
	if s.Config.TranslateURL == "" {
		return nil
	}
	opts := TranslateFetchLimits
	opts.AllowPrivate = s.Config.AllowPrivateFetch
	if s.Config.TranslateTimeout > 0 {
		opts.Timeout = s.Config.TranslateTimeout
	}
	// The operator chose this server: it may be on loopback or the intranet
	// without opening private addresses to user-given URLs.
	if u, err := url.Parse(s.Config.TranslateURL); err == nil && u.Host != "" {
		port := u.Port()
		if port == "" {
			port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
		}
		opts.Trusted = []string{net.JoinHostPort(u.Hostname(), port)}
	}
	return &translate.LibreTranslate{URL: s.Config.TranslateURL, Key: s.Config.TranslateKey, HTTP: fetch.New(opts)}
}

// TranslationRunner is the runner of the translation queue over this
// server's database and provider (tests run it directly).
func (s *Server) TranslationRunner() *translate.Runner {
	s.translationsOnce.Do(func() {
		s.Metrics.Queue(graph.QueueTranslations, s.DB.PendingTranslations)
		s.translations = &translate.Runner{Queue: s.DB, Provider: s.translationProvider(), Analyzer: s.Resolver.ContentAnalyzer,
			Validate: graph.CheckTranslatedPage, Runs: s.Config.TranslationRuns,
			RunTimeout: s.Config.TranslationRunTimeout, CallTimeout: s.Config.TranslateTimeout,
			Log: s.Log, Lease: s.DB.JobLease(), After: func(res translate.Result) { s.Metrics.ObserveJob(graph.QueueTranslations, res.Duration, res.Err) }}
	})
	return s.translations
}
