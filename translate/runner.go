package translate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"docsapi/markdown"
	"docsapi/storage"
)

// Why a run failed (Translation.error.code).
const (
	CodeNotConfigured     = "PROVIDER_NOT_CONFIGURED"
	CodeProviderError     = "PROVIDER_ERROR"
	CodeSourceUnavailable = "SOURCE_UNAVAILABLE"
	CodeInternal          = "INTERNAL_ERROR"
)

// MsgNotConfigured names the missing configuration.
const MsgNotConfigured = "no translation provider is configured: start docsapi with --translate-url " +
	"(env DOCSAPI_TRANSLATE_URL) set to a LibreTranslate-compatible server, and --translate-key " +
	"(DOCSAPI_TRANSLATE_KEY) when it needs an API key; then run the translation again"

// Queue is the storage the runner needs: the translations table is the
// queue, and runs read and write spaces' content.
type Queue interface {
	ClaimTranslationJob(ctx context.Context) (*storage.TranslationJob, error)
	ReleaseTranslationJob(ctx context.Context, id string) error
	RenewTranslationJob(ctx context.Context, id string) (bool, error)
	RequeueInterruptedTranslationJobs(ctx context.Context) (int, error)
	FailTranslationJob(ctx context.Context, id, code, message string) error
	TranslationPages(ctx context.Context, id string) (map[string]storage.TranslationPage, error)
	CreateTranslationTarget(ctx context.Context, translationID string, sp *storage.Space) error
	FinishTranslationRun(ctx context.Context, run storage.TranslationRun) error
	Space(ctx context.Context, id string) (storage.Space, error)
	RevisionTree(ctx context.Context, revID string) (*storage.Tree, error)
	RevisionPages(ctx context.Context, revID string) ([]storage.ContentPage, error)
	CreateRevision(ctx context.Context, c storage.RevisionChange) (string, error)
	Glossary(ctx context.Context, orgID string) ([]storage.GlossaryEntry, error)
}

// Runner runs pending translations, up to Runs at once and at most one of
// an organization at a time (the queue's claim sees to that across
// replicas), so one organization's slow or hanging run holds one slot and
// never delays another organization's run. Within a run, batches go to the
// provider Parallel at a time.
type Runner struct {
	Queue    Queue
	Provider Provider // nil: no provider configured (runs fail with CodeNotConfigured)
	// Analyzer gives, for each revision a run writes, the links and search
	// sections of its pages (the graph layer's, as for every revision).
	Analyzer func() storage.Analyzer
	// Validate holds each page a run builds to the rules of a page written
	// through the API (graph.CheckTranslatedPage): the provider's answer
	// is outside input. nil checks nothing.
	Validate func(*storage.TreePage) error
	Log      *slog.Logger
	Parallel int           // concurrent provider requests of one run; default 4
	Runs     int           // runs at once (one per organization); default DefaultRuns
	Poll     time.Duration // safety re-scan of the queue; default 30s
	Lease    time.Duration // the queue's lease on a claimed run (renewed every quarter of it); default storage.JobLease
	// RunTimeout bounds one run (default DefaultRunTimeout), CallTimeout
	// one provider request (default DefaultCallTimeout); a run past either
	// fails with CodeProviderError and writes nothing.
	RunTimeout  time.Duration
	CallTimeout time.Duration
	// After, when set, is called after every run (tests, metrics), one
	// call at a time although runs go in parallel.
	After func(Result)

	afterMu sync.Mutex
}

// Defaults of the Runner's bounds.
const (
	DefaultRuns        = 4
	DefaultRunTimeout  = 10 * time.Minute
	DefaultCallTimeout = 2 * time.Minute
)

// Result is what one run did.
type Result struct {
	TranslationID string
	Applied       bool   // the outcome was recorded (false: deleted meanwhile, or released)
	Released      bool   // the runner stopped mid-run; the translation is pending again
	Revision      string // the revision made ("" when none: failure or nothing changed)
	ErrorCode     string
	Err           error
	Pages         int // pages translated
	Words         int // words sent to the provider
	Requests      int // provider requests
	Duration      time.Duration
}

// Run processes the queue until ctx ends: it first requeues runs a stopped
// process left running, then claims runs into its free slots on every
// wake-up, every finished run (and every Poll as a safety net). It
// returns once the runs under way have stopped (released to the queue).
func (r *Runner) Run(ctx context.Context, wake <-chan struct{}) {
	if n, err := r.Queue.RequeueInterruptedTranslationJobs(ctx); err != nil {
		r.Log.Error("translations: requeue interrupted runs", "error", err)
	} else if n > 0 {
		r.Log.Info("translations: resumed runs interrupted by a restart", "count", n)
	}
	poll := r.Poll
	if poll <= 0 {
		poll = 30 * time.Second
	}
	ticker := time.NewTicker(poll)
	defer ticker.Stop()
	s := r.newSlots()
	defer s.wait()
	for {
		if _, err := r.fill(ctx, s); err != nil && ctx.Err() == nil {
			r.Log.Error("translations: reading the queue", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-s.finished:
			s.running--
		case <-ticker.C:
		}
	}
}

// RunPending runs pending translations until none is left and returns how
// many runs it made. Tests call it to run the queue deterministically.
func (r *Runner) RunPending(ctx context.Context) (int, error) {
	s := r.newSlots()
	defer s.wait()
	total := 0
	for {
		n, err := r.fill(ctx, s)
		total += n
		if err != nil || s.running == 0 || ctx.Err() != nil {
			return total, err
		}
		<-s.finished // an organization's next run may be claimable now
		s.running--
	}
}

// slots are the runs under way of one loop: running is the loop's count
// (only the loop touches it), finished receives once per ended run.
type slots struct {
	size, running int
	finished      chan struct{}
}

func (r *Runner) newSlots() *slots {
	size := r.Runs
	if size <= 0 {
		size = DefaultRuns
	}
	return &slots{size: size, finished: make(chan struct{}, size)}
}

// wait lets the runs under way end.
func (s *slots) wait() {
	for ; s.running > 0; s.running-- {
		<-s.finished
	}
}

// fill claims runs into the free slots and starts them; it returns how
// many it started (it stops when the queue has no run it may take).
func (r *Runner) fill(ctx context.Context, s *slots) (int, error) {
	n := 0
	for s.running < s.size && ctx.Err() == nil {
		job, err := r.Queue.ClaimTranslationJob(ctx)
		if err != nil || job == nil {
			return n, err
		}
		s.running++
		n++
		go func() {
			defer func() { s.finished <- struct{}{} }()
			r.runJob(ctx, job)
		}()
	}
	return n, nil
}

// errRunTimeout is the cause of a run's context when RunTimeout passed.
var errRunTimeout = errors.New("translate: the run's deadline passed")

// runJob makes one claimed run within its deadline. The run holds its
// lease while it goes on; losing it (another replica took the run over)
// stops the run.
func (r *Runner) runJob(ctx context.Context, job *storage.TranslationJob) {
	jobCtx, stop := storage.KeepLease(ctx, r.Lease, func(c context.Context) (bool, error) { return r.Queue.RenewTranslationJob(c, job.ID) })
	defer stop()
	runCtx, cancel := context.WithTimeoutCause(jobCtx, r.runTimeout(), errRunTimeout)
	defer cancel()
	r.finish(r.process(runCtx, job))
}

func (r *Runner) runTimeout() time.Duration {
	if r.RunTimeout > 0 {
		return r.RunTimeout
	}
	return DefaultRunTimeout
}

func (r *Runner) finish(res Result) {
	r.afterMu.Lock()
	defer r.afterMu.Unlock()
	if r.After != nil {
		r.After(res)
	}
}

// process makes one run. Its outcome is always recorded (or the job
// released), and every failure is logged.
func (r *Runner) process(ctx context.Context, job *storage.TranslationJob) Result {
	start := time.Now()
	res := Result{TranslationID: job.ID}
	log := r.Log.With("translation", job.ID, "organization", job.OrganizationID, "language", job.Language)
	store := context.WithoutCancel(ctx) // outcomes are recorded even when ctx ends

	fail := func(code, msg string, err error) Result {
		res.ErrorCode, res.Err, res.Duration = code, err, time.Since(start)
		if ferr := r.Queue.FailTranslationJob(store, job.ID, code, msg); ferr != nil {
			log.Error("translations: recording a failed run", "error", ferr)
			res.Err = errors.Join(res.Err, ferr)
			return res
		}
		res.Applied = true
		log.Warn("translations: run failed", "code", code, "message", msg)
		return res
	}
	if r.Provider == nil {
		return fail(CodeNotConfigured, MsgNotConfigured, errors.New(MsgNotConfigured))
	}
	out, err := r.run(ctx, job, start, &res)
	switch {
	case err == nil:
		res.Applied, res.Revision, res.Duration = true, out, time.Since(start)
		log.Info("translations: run completed", "revision", out, "pages", res.Pages, "words", res.Words,
			"requests", res.Requests, "duration", res.Duration)
		return res
	case errors.Is(context.Cause(ctx), errRunTimeout):
		// The run's own deadline, not a stop: it fails like a provider
		// that did not answer, and the runner's slot is free again.
		log.Warn("translations: run past its deadline", "timeout", r.runTimeout(), "error", err)
		return fail(CodeProviderError, fmt.Sprintf("the run did not finish within %s (the translation server answered too slowly); nothing was written", r.runTimeout()), err)
	case ctx.Err() != nil:
		res.Released, res.Err = true, err
		if rerr := r.Queue.ReleaseTranslationJob(store, job.ID); rerr != nil {
			log.Error("translations: releasing an interrupted run", "error", rerr)
		}
		return res
	case errors.Is(err, storage.ErrNotFound):
		res.Err = err
		log.Info("translations: run discarded: the translation was deleted meanwhile")
		return res
	}
	var se *sourceError
	var pe *ProviderError
	switch {
	case errors.As(err, &se):
		return fail(CodeSourceUnavailable, se.msg, err)
	case errors.As(err, &pe):
		// The admins see what went wrong, not where: the server's address
		// and its own words go to the log only.
		log.Warn("translations: translation server failed", "error", err)
		return fail(CodeProviderError, pe.Public(), err)
	}
	log.Error("translations: run failed", "error", err)
	return fail(CodeInternal, "the run could not be completed; the server log has the cause", err)
}

type sourceError struct{ msg string }

func (e *sourceError) Error() string { return e.msg }

// page is one source page of a run and what it becomes.
type page struct {
	src       *storage.TreePage
	target    string // target page id
	translate bool
	title     int                // index of the title in the texts
	desc      int                // index of the description, -1 when none
	runs      []markdown.TextRun // prose runs of the body
	firstRun  int
}

// run translates the source space into the target space and returns the
// revision made ("" when nothing changed since the last run).
func (r *Runner) run(ctx context.Context, job *storage.TranslationJob, start time.Time, res *Result) (string, error) {
	src, err := r.Queue.Space(ctx, job.SourceSpace)
	if errors.Is(err, storage.ErrNotFound) || (err == nil && (src.DeletedAt != nil || src.OrganizationID != job.OrganizationID)) {
		return "", &sourceError{"the source space " + job.SourceSpace + " no longer exists (deleted or moved to another organization)"}
	}
	if err != nil {
		return "", err
	}
	srcTree, err := r.Queue.RevisionTree(ctx, src.RevisionID)
	if err != nil {
		return "", err
	}
	prev, err := r.Queue.TranslationPages(ctx, job.ID)
	if err != nil {
		return "", err
	}
	target, existing, err := r.target(ctx, job, src)
	if err != nil {
		return "", err
	}

	// The organization's glossary: its source terms go as placeholders and
	// come back as its target terms (glossary.go).
	entries, err := r.Queue.Glossary(ctx, job.OrganizationID)
	if err != nil {
		return "", err
	}
	gl := newGlossary(entries, job.SourceLanguage, job.Language)
	glossaryChanged := gl.hash() != job.GlossaryHash

	// Plan: pages whose source version was translated before into a page
	// still in the target are kept; the others are translated (all of them
	// when the glossary changed since the last run).
	var pages []*page
	var texts []string
	add := func(s string) int { texts = append(texts, s); return len(texts) - 1 }
	newPages := 0
	srcTree.Walk(func(p, _ *storage.TreePage) bool {
		pg := &page{src: p, desc: -1}
		m, had := prev[p.ID]
		pg.target = m.TargetPage
		if !had {
			pg.target = storage.NewID()
			newPages++
		}
		pg.translate = !had || m.SourceVersion != p.Version || !existing[m.TargetPage] || glossaryChanged
		if pg.translate {
			pg.title = add(p.Title)
			if p.Meta.Description != "" {
				pg.desc = add(p.Meta.Description)
			}
			if p.Type == "document" {
				pg.runs, pg.firstRun = markdown.TextRuns(p.Markdown), len(texts)
				for _, tr := range pg.runs {
					add(tr.Text)
				}
			}
			res.Pages++
		}
		pages = append(pages, pg)
		return true
	})
	for _, t := range texts {
		res.Words += markdown.Words(t)
	}
	run := storage.TranslationRun{ID: job.ID, TargetSpace: target.ID, SourceRevision: src.RevisionID, GlossaryHash: gl.hash(),
		NewPages: newPages, Translated: res.Pages, Words: res.Words}
	for _, pg := range pages {
		run.Pages = append(run.Pages, storage.TranslationPage{SourcePage: pg.src.ID, SourceVersion: pg.src.Version, TargetPage: pg.target})
	}
	unchanged := res.Pages == 0 && job.SourceRevision != nil && *job.SourceRevision == src.RevisionID &&
		job.ResultRevision != nil && *job.ResultRevision == target.RevisionID
	if unchanged {
		run.Duration = time.Since(start)
		return "", r.Queue.FinishTranslationRun(ctx, run)
	}

	parallel := r.Parallel
	if parallel <= 0 {
		parallel = 4
	}
	callTimeout := r.CallTimeout
	if callTimeout <= 0 {
		callTimeout = DefaultCallTimeout
	}
	send := texts
	if !gl.empty() {
		send = make([]string, len(texts))
		for i, t := range texts {
			send[i] = gl.protect(t)
		}
	}
	out, requests, err := translateAll(ctx, r.Provider, send, job.SourceLanguage, job.Language, parallel, callTimeout)
	res.Requests = requests
	if err != nil {
		return "", err
	}
	if !gl.empty() {
		for i, t := range out {
			if send[i] != texts[i] { // only texts that went with placeholders
				out[i] = gl.restore(t)
			}
		}
	}
	built := map[string]*storage.TreePage{}
	for _, pg := range pages {
		if pg.translate {
			tp := translatedPage(pg, out)
			if err := r.check(pg.src, tp); err != nil {
				return "", err
			}
			built[pg.src.ID] = tp
		}
	}
	// The target space's new content is announced like any edit (webhooks).
	rev := storage.NewID()
	ctx = storage.RecordingChange(ctx, storage.PageChanged(target.OrganizationID, target.ID, rev))
	return r.Queue.CreateRevision(ctx, storage.RevisionChange{
		ID: rev, SpaceID: target.ID, Type: "computed", Activate: true, Analyzer: r.Analyzer(), Batched: true,
		Edit: func(t *storage.Tree) error { return mirror(t, srcTree, pages, built) },
		Also: func(tx *storage.Tx, revID string) error {
			run.Duration = time.Since(start)
			return storage.RecordTranslationRun(run)(tx, revID)
		},
	})
}

// check holds a translated page to the API's rules (Validate): a page the
// provider's answer breaks fails the run, naming the source page and the
// rule, and nothing is written.
func (r *Runner) check(src *storage.TreePage, tp *storage.TreePage) error {
	if r.Validate == nil {
		return nil
	}
	err := r.Validate(tp)
	if err == nil {
		return nil
	}
	title := src.Title
	if t := []rune(title); len(t) > 100 {
		title = string(t[:100]) + "…"
	}
	return &ProviderError{Msg: fmt.Sprintf("the translation of the page %q (%s) breaks the limits of a page written through the API: %v; nothing was written", title, src.ID, err)}
}

// target returns the target space (creating it when the translation has
// none, or when it was deleted) and the ids of the pages it holds.
func (r *Runner) target(ctx context.Context, job *storage.TranslationJob, src storage.Space) (storage.Space, map[string]bool, error) {
	if job.TargetSpace != nil {
		sp, err := r.Queue.Space(ctx, *job.TargetSpace)
		if err == nil && sp.DeletedAt == nil && sp.OrganizationID == job.OrganizationID {
			pages, err := r.Queue.RevisionPages(ctx, sp.RevisionID)
			if err != nil {
				return sp, nil, err
			}
			ids := make(map[string]bool, len(pages))
			for _, p := range pages {
				ids[p.ID] = true
			}
			return sp, ids, nil
		}
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return sp, nil, err
		}
	}
	title := src.Title + " (" + job.Language + ")"
	if r := []rune(title); len(r) > 50 {
		title = string(r[:50])
	}
	level := "inherit"
	sp := storage.Space{OrganizationID: job.OrganizationID, ParentID: src.ParentID, Title: title, Emoji: src.Emoji,
		Icon: src.Icon, Visibility: src.Visibility, EditMode: "live", DefaultLevel: &level}
	if src.DefaultLevel != nil {
		sp.DefaultLevel = src.DefaultLevel
	}
	err := r.Queue.CreateTranslationTarget(ctx, job.ID, &sp)
	return sp, map[string]bool{}, err
}

// translatedPage builds the target version of a translated source page. The
// title and description are plain text (stored as translated); only the
// Markdown body has the markup a translation brings escaped.
func translatedPage(pg *page, out []string) *storage.TreePage {
	p := pg.src
	meta := p.Meta
	if pg.desc >= 0 {
		meta.Description = markdown.OneLine(out[pg.desc])
	}
	tp := &storage.TreePage{ContentPage: storage.ContentPage{ID: pg.target, Type: p.Type, Title: markdown.OneLine(out[pg.title]),
		Slug: p.Slug, Meta: meta}}
	body := ""
	if p.Type == "document" {
		body = markdown.ReplaceRuns(p.Markdown, pg.runs, out[pg.firstRun:pg.firstRun+len(pg.runs)])
	}
	tp.SetBody(body)
	return tp
}

// mirror makes t's page tree the source tree's shape: translated pages are
// the built ones, kept pages are the target's own (their stored version is
// reused), and the source's files are shared (same bytes, same ids).
func mirror(t *storage.Tree, src *storage.Tree, pages []*page, built map[string]*storage.TreePage) error {
	have := map[string]*storage.TreePage{}
	t.Walk(func(p, _ *storage.TreePage) bool { have[p.ID] = p; return true })
	bySource := make(map[string]*page, len(pages))
	for _, pg := range pages {
		bySource[pg.src.ID] = pg
	}
	var missing error
	var build func(list []*storage.TreePage) []*storage.TreePage
	build = func(list []*storage.TreePage) []*storage.TreePage {
		out := make([]*storage.TreePage, 0, len(list))
		for _, sp := range list {
			pg := bySource[sp.ID]
			np := built[sp.ID]
			if np == nil {
				np = have[pg.target]
			} else if old := have[pg.target]; old != nil {
				np.CreatedAt = old.CreatedAt
			}
			if np == nil { // removed from the target since the run was planned
				missing = errors.New("the target space changed during the run; run the translation again")
				continue
			}
			np.Children = build(sp.Children)
			out = append(out, np)
		}
		return out
	}
	t.Pages = build(src.Pages)
	if missing != nil {
		return missing
	}
	t.Files = t.Files[:0]
	for _, f := range src.Files {
		c := *f
		c.Bytes = nil
		t.Files = append(t.Files, &c)
	}
	return nil
}
