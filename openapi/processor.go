package openapi

import (
	"context"
	"errors"
	"fmt"
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
	ClaimOpenAPIJobFair(ctx context.Context, maxPerOrg int, avoid string) (*storage.OpenAPIJob, error)
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
	Workers int           // concurrent runs; default DefaultWorkers
	Poll    time.Duration // safety re-scan of the queue when no wake-up comes; default 30s
	// JobTimeout bounds one run (fetch, parse, validate); a run over it is
	// recorded as failed. Default DefaultJobTimeout.
	JobTimeout time.Duration
	Lease      time.Duration // the queue's lease on a claimed run (renewed every quarter of it); default storage.JobLease
	// After, when set, is called after every run (tests wait on it).
	After func(Result)

	lastOrg atomic.Value // string: the organization of the latest claim, which the next claim avoids when others wait
}

// Defaults of Processor.
const (
	DefaultWorkers    = 4
	DefaultJobTimeout = time.Minute
)

// errJobTimeout ends a run over its JobTimeout.
var errJobTimeout = errors.New("openapi: run deadline")

func (p *Processor) workers() int {
	if p.Workers <= 0 {
		return DefaultWorkers
	}
	return p.Workers
}

// maxPerOrg is how many runs one organization may have in progress: all
// workers but one, so that another organization's spec never waits for
// one organization's backlog (with one worker, there is no such bound).
func (p *Processor) maxPerOrg() int {
	return max(p.workers()-1, 0)
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
// process left in progress, then Workers workers drain the queue, each
// woken on every wake-up (and every Poll as a safety net). A worker busy
// with a long run does not keep the others from claiming.
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
	kicks := make([]chan struct{}, p.workers())
	var wg sync.WaitGroup
	defer wg.Wait()
	for i := range kicks {
		kick := make(chan struct{}, 1)
		kick <- struct{}{} // drain once at start
		kicks[i] = kick
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-kick:
				}
				if _, err := p.drain(ctx); err != nil && ctx.Err() == nil {
					p.Log.Error("openapi: reading the processing queue", "error", err)
				}
			}
		})
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-ticker.C:
		}
		for _, kick := range kicks {
			select {
			case kick <- struct{}{}:
			default: // already woken
			}
		}
	}
}

// RunPending processes pending specs until none is left and returns how
// many runs it made. Tests call it to process deterministically.
func (p *Processor) RunPending(ctx context.Context) (int, error) {
	var n atomic.Int64
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for range p.workers() {
		wg.Go(func() {
			runs, err := p.drain(ctx)
			n.Add(int64(runs))
			if err != nil {
				mu.Lock()
				firstErr = errors.Join(firstErr, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return int(n.Load()), firstErr
}

// drain claims and makes runs until the queue has none this worker may
// take.
func (p *Processor) drain(ctx context.Context) (int, error) {
	n := 0
	for ctx.Err() == nil {
		last, _ := p.lastOrg.Load().(string)
		job, err := p.Queue.ClaimOpenAPIJobFair(ctx, p.maxPerOrg(), last)
		if err != nil || job == nil {
			return n, err
		}
		p.lastOrg.Store(job.OrganizationID)
		// The run holds its lease while it goes on; losing it (another
		// replica took the run over) stops the run.
		jobCtx, stop := storage.KeepLease(ctx, p.Lease, func(c context.Context) (bool, error) { return p.Queue.RenewOpenAPIJob(c, job) })
		timeout := p.JobTimeout
		if timeout <= 0 {
			timeout = DefaultJobTimeout
		}
		jobCtx, cancel := context.WithTimeoutCause(jobCtx, timeout, errJobTimeout)
		p.process(jobCtx, job, timeout)
		cancel()
		stop()
		n++
	}
	return n, nil
}

// process makes one run. Its outcome is always written (or the job
// released), never dropped silently, and every failure is logged.
func (p *Processor) process(ctx context.Context, job *storage.OpenAPIJob, timeout time.Duration) {
	start := time.Now()
	res := Result{SpecID: job.SpecID, Slug: job.Slug}
	log := p.Log.With("spec", job.SpecID, "organization", job.OrganizationID, "slug", job.Slug)
	// The outcome is recorded even when ctx ends during the write.
	store := context.WithoutCancel(ctx)

	out, err := p.evaluate(ctx, job)
	if err != nil && context.Cause(ctx) == errJobTimeout {
		// Over its deadline the run fails for good: released, the same
		// document would take every worker again and again.
		code := CodeParseError
		if out.ErrorCode == CodeFetchError || out.ErrorCode == CodeFetchTimeout {
			code = CodeFetchTimeout
		}
		err = fmt.Errorf("processing the document took longer than %s, the limit of one run", timeout)
		out = storage.OpenAPIOutcome{ErrorCode: code, ErrorMessage: err.Error()}
	}
	if err != nil && context.Cause(ctx) != errJobTimeout && (fetch.KindOf(err) == fetch.KindCanceled || ctx.Err() != nil) {
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
