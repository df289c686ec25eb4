package openapi

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"docsapi/fetch"
	"docsapi/storage"
)

// Processing error codes, as the API reports them in lastProcessErrorCode.
const (
	CodeFetchTimeout = "FETCH_TIMEOUT"
	CodeFetchError   = "FETCH_ERROR"
	CodeParseError   = "PARSE_ERROR"
)

// Queue is the storage the processor needs: the specs table is the queue.
type Queue interface {
	ClaimOpenAPIJob(ctx context.Context) (*storage.OpenAPIJob, error)
	FinishOpenAPIJob(ctx context.Context, job *storage.OpenAPIJob, out storage.OpenAPIOutcome) (storage.OpenAPIFinish, error)
	ReleaseOpenAPIJob(ctx context.Context, job *storage.OpenAPIJob) error
	RenewOpenAPIJob(ctx context.Context, job *storage.OpenAPIJob) (bool, error)
	RequeueInterruptedOpenAPIJobs(ctx context.Context) (int, error)
}

// Processor runs pending specs: fetch (URL sources), parse, validate, and
// record a version or an error code.
type Processor struct {
	Queue   Queue
	Fetch   *fetch.Fetcher
	Log     *slog.Logger
	Workers int           // concurrent runs; default 4
	Poll    time.Duration // safety re-scan of the queue when no wake-up comes; default 30s
	Lease   time.Duration // the queue's lease on a claimed run (renewed every quarter of it); default storage.JobLease
	// After, when set, is called after every run (tests wait on it).
	After func(Result)
}

// Result is what one run did.
type Result struct {
	SpecID     string
	Slug       string
	Applied    bool   // false: the spec changed or vanished meanwhile, or the run was released
	Released   bool   // the processor stopped mid-run; the spec is pending again
	NewVersion string // id of the stored version, "" when none
	ErrorCode  string // "" on success
	Err        error  // the failure behind ErrorCode, or a storage error
	Duration   time.Duration
}

// Run processes the queue until ctx ends: first it requeues runs a stopped
// process left in progress, then it drains the queue on every wake-up (and
// every Poll as a safety net).
func (p *Processor) Run(ctx context.Context, wake <-chan struct{}) {
	if n, err := p.Queue.RequeueInterruptedOpenAPIJobs(ctx); err != nil {
		p.Log.Error("openapi: requeue interrupted runs", "error", err)
	} else if n > 0 {
		p.Log.Info("openapi: resumed runs interrupted by a restart", "count", n)
	}
	poll := p.Poll
	if poll <= 0 {
		poll = 30 * time.Second
	}
	ticker := time.NewTicker(poll)
	defer ticker.Stop()
	for {
		if _, err := p.RunPending(ctx); err != nil && ctx.Err() == nil {
			p.Log.Error("openapi: reading the processing queue", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-ticker.C:
		}
	}
}

// RunPending processes pending specs until none is left and returns how
// many runs it made. Tests call it to process deterministically.
func (p *Processor) RunPending(ctx context.Context) (int, error) {
	workers := p.Workers
	if workers <= 0 {
		workers = 4
	}
	var n atomic.Int64
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				job, err := p.Queue.ClaimOpenAPIJob(ctx)
				if err != nil {
					mu.Lock()
					firstErr = errors.Join(firstErr, err)
					mu.Unlock()
					return
				}
				if job == nil {
					return
				}
				// The run holds its lease while it goes on; losing it
				// (another replica took the run over) stops the run.
				jobCtx, stop := storage.KeepLease(ctx, p.Lease, func(c context.Context) (bool, error) { return p.Queue.RenewOpenAPIJob(c, job) })
				p.process(jobCtx, job)
				stop()
				n.Add(1)
			}
		})
	}
	wg.Wait()
	return int(n.Load()), firstErr
}

// process makes one run. Its outcome is always written (or the job
// released), never dropped silently, and every failure is logged.
func (p *Processor) process(ctx context.Context, job *storage.OpenAPIJob) {
	start := time.Now()
	res := Result{SpecID: job.SpecID, Slug: job.Slug}
	log := p.Log.With("spec", job.SpecID, "organization", job.OrganizationID, "slug", job.Slug)
	// The outcome is recorded even when ctx ends during the write.
	store := context.WithoutCancel(ctx)

	out, err := p.evaluate(ctx, job)
	if err != nil && (fetch.KindOf(err) == fetch.KindCanceled || ctx.Err() != nil) {
		res.Released, res.Err = true, err
		if rerr := p.Queue.ReleaseOpenAPIJob(store, job); rerr != nil {
			log.Error("openapi: releasing an interrupted run", "error", rerr)
		}
		p.done(res, start)
		return
	}
	res.ErrorCode, res.Err = out.ErrorCode, err
	fin, ferr := p.Queue.FinishOpenAPIJob(store, job, out)
	if ferr != nil {
		// The spec stays in progress; the next start requeues it.
		log.Error("openapi: recording a run", "error", ferr)
		res.Err = errors.Join(res.Err, ferr)
		p.done(res, start)
		return
	}
	res.Applied, res.NewVersion = fin.Applied, fin.NewVersion
	switch {
	case !fin.Applied:
		log.Info("openapi: run discarded: the spec was changed or deleted meanwhile")
	case err != nil:
		log.Warn("openapi: processing failed", "code", out.ErrorCode, "error", err)
	default:
		log.Info("openapi: processed", "version", fin.NewVersion, "unchanged", fin.NewVersion == "",
			"title", out.Version.Title, "openapi", out.Version.OpenAPI, "bytes", len(out.Version.Document),
			"duration", time.Since(start))
	}
	p.done(res, start)
}

func (p *Processor) done(res Result, start time.Time) {
	res.Duration = time.Since(start)
	if p.After != nil {
		p.After(res)
	}
}

// maxMessage bounds the stored error message (validation can list many
// problems).
const maxMessage = 2000

// evaluate fetches and parses the job's source. The error, when not nil,
// is the failure behind out.ErrorCode.
func (p *Processor) evaluate(ctx context.Context, job *storage.OpenAPIJob) (storage.OpenAPIOutcome, error) {
	fail := func(code string, err error) (storage.OpenAPIOutcome, error) {
		msg := err.Error()
		if len(msg) > maxMessage {
			msg = msg[:maxMessage] + "…"
		}
		return storage.OpenAPIOutcome{ErrorCode: code, ErrorMessage: msg}, err
	}
	var data []byte
	switch {
	case job.SourceURL != nil:
		r, err := p.Fetch.Get(ctx, *job.SourceURL)
		if fetch.IsTimeout(err) {
			return fail(CodeFetchTimeout, err)
		}
		if err != nil {
			return fail(CodeFetchError, err)
		}
		data = r.Body
	case job.SourceText != nil:
		data = []byte(*job.SourceText)
	default:
		return fail(CodeParseError, errors.New("the spec has no source"))
	}
	doc, err := Parse(ctx, data)
	if err != nil {
		return fail(CodeParseError, err)
	}
	return storage.OpenAPIOutcome{Version: &storage.NewOpenAPIVersion{
		Title: doc.Title, Version: doc.Version, OpenAPI: doc.OpenAPI, Format: doc.Format,
		ContentHash: doc.ContentHash, SourceURL: job.SourceURL, Document: data,
	}}, nil
}
