package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"strings"
	"time"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/gitsync"
	"docsapi/graph/model"
	"docsapi/importer"
	"docsapi/storage"
)

// Git Sync: importGitRepository and exportToGitRepository queue
// an operation (storage git_operations) and answer at once; GitSyncWorker
// runs the queue. The rules:
//   - a space's operations run one at a time, oldest timestamp first, on one
//     replica (a lease, storage/leases.go);
//   - an operation older than the newest one applied to the space is
//     skipped (an older one never overwrites a newer);
//   - import wins on import: the ref's files become the space's content (a
//     new revision), whatever the space held;
//   - export refuses a ref that moved since the space last synced with it
//     (the remote has changes the space has not seen) unless force; it makes
//     one commit, authored by the requesting user with the revision's id in
//     its message, and only when the files changed;
//   - every outcome (completed, skipped, failed with its reason) is written
//     to the operation, readable in the space's GitSyncState, and recorded
//     as an audit entry and a space.git-synced webhook event.

// QueueGitSync names the background queue of Git Sync operations.
const QueueGitSync = "gitsync"

const (
	maxGitCommitMessage = 10000
	maxGitURL           = 2048
)

// gitParams are an operation's inputs besides URL and ref (stored as JSON).
type gitParams struct {
	TreeURL       string `json:"treeURL,omitempty"`
	CommitURL     string `json:"commitURL,omitempty"`
	ProjectDir    string `json:"projectDir,omitempty"`
	Force         bool   `json:"force,omitempty"`
	Standalone    bool   `json:"standalone,omitempty"`
	CommitMessage string `json:"commitMessage,omitempty"`
	// ChangeRequest is the id of the change request an import writes to
	// (docsapi's extension; "": the main content).
	ChangeRequest string `json:"changeRequest,omitempty"`
}

type gitRequest struct {
	kind, url, ref string
	timestamp      *string
	gitInfo        *model.UpdateSpaceGitInfo
	repoCacheID    *string
	changeRequest  *string
	params         gitParams
}

// maxRepoCacheID bounds repoCacheID, which is accepted and not used.
const maxRepoCacheID = 255

func optURL(field string, v *string) (string, error) {
	if v == nil || *v == "" {
		return "", nil
	}
	return *v, checkURL(field, *v, maxGitURL)
}

// queueGitOperation checks a request and queues its operation.
func (r *Resolver) queueGitOperation(ctx context.Context, spaceID string, in gitRequest, repoTree, repoCommit, projectDir *string) (*model.GitSyncOperation, error) {
	cs, err := r.contentSpace(ctx, spaceID, true)
	if err != nil {
		return nil, err
	}
	caller, err := callerOf(ctx)
	if err != nil {
		return nil, err
	}
	if in.url == "" {
		return nil, apierr.Invalid("url", "is required")
	}
	if in.ref == "" {
		return nil, apierr.Invalid("ref", "is required")
	}
	rem, field, err := gitsync.ParseRemote(in.url, in.ref)
	if err != nil {
		return nil, apierr.Invalid(field, "%s", err.Error())
	}
	if in.params.TreeURL, err = optURL("repoTreeURL", repoTree); err != nil {
		return nil, err
	}
	if in.params.CommitURL, err = optURL("repoCommitURL", repoCommit); err != nil {
		return nil, err
	}
	if projectDir != nil {
		if err := gitsync.CheckProjectDirectory(*projectDir); err != nil {
			return nil, apierr.Invalid("repoProjectDirectory", "must be a plain relative folder such as docs")
		}
		in.params.ProjectDir = strings.Trim(*projectDir, "/")
	}
	if err := checkLenPtr("repoCacheID", in.repoCacheID, 0, maxRepoCacheID); err != nil {
		return nil, err
	}
	if in.changeRequest != nil {
		if in.params.ChangeRequest, err = r.importChangeRequest(ctx, cs, *in.changeRequest); err != nil {
			return nil, err
		}
	}
	var ts time.Time
	if in.timestamp != nil {
		if ts, err = time.Parse(time.RFC3339Nano, *in.timestamp); err != nil {
			return nil, apierr.Invalid("timestamp", "must be an RFC 3339 date-time")
		}
	}
	provider, treeURL := "", in.params.TreeURL
	if gi := in.gitInfo; gi != nil {
		if gi.Provider != nil {
			if *gi.Provider != "github" && *gi.Provider != "gitlab" {
				return nil, apierr.Invalid("gitInfo.provider", "must be github or gitlab")
			}
			provider = *gi.Provider
		}
		if u, err := optURL("gitInfo.url", gi.URL); err != nil {
			return nil, err
		} else if u != "" {
			treeURL = u
		}
	}
	params, _ := json.Marshal(in.params)
	op := storage.GitOperation{OrganizationID: cs.Space.OrganizationID, SpaceID: cs.Head.ID, UserID: caller.UserID, Kind: in.kind,
		URL: rem.URL, RemoteURL: in.url, Ref: rem.Ref.String(), Params: string(params), Timestamp: ts}
	ctx = recordChange(ctx, cs.Space.OrganizationID, "space.git_sync_requested", "space", cs.Head.ID,
		map[string]any{"kind": in.kind, "url": rem.URL, "ref": rem.Ref.String()})
	if err := r.Store.EnqueueGitOperation(ctx, &op, provider, treeURL); err != nil {
		return nil, err
	}
	r.wake(QueueGitSync)
	return gitOperationModel(op), nil
}

// importChangeRequest is the id of the change request an import names
// (by id or number): a draft or open one of the space. An unknown or
// closed one is a 400 naming the field; another space's is a 404, as
// any other space's resource.
func (r *Resolver) importChangeRequest(ctx context.Context, cs contentScope, ref string) (string, error) {
	if err := checkLen("changeRequest", ref, 1, 64); err != nil {
		return "", err
	}
	cr, err := r.Store.ChangeRequest(ctx, cs.Head.ID, ref)
	if errors.Is(err, storage.ErrNotFound) {
		if space, err := r.Store.ChangeRequestSpace(ctx, ref); err == nil && space != cs.Head.ID {
			return "", apierr.NotFound("change request " + ref)
		} else if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return "", err
		}
		return "", apierr.Invalid("changeRequest", "no change request %s in this space: open one first (createChangeRequest)", ref)
	}
	if err != nil {
		return "", err
	}
	if cr.Status == "merged" || cr.Status == "archived" {
		return "", apierr.Invalid("changeRequest", "change request %s is %s: import into a draft or open one", ref, cr.Status)
	}
	return cr.ID, nil
}

func gitOperationModel(o storage.GitOperation) *model.GitSyncOperation {
	m := &model.GitSyncOperation{ID: o.ID, Kind: o.Kind, Status: o.Status, Stage: o.Stage, Message: o.Message, URL: o.URL, Ref: o.Ref,
		Timestamp: model.Time(o.Timestamp), CreatedAt: model.Time(o.CreatedAt), UpdatedAt: model.Time(o.UpdatedAt)}
	if o.Commit != "" {
		m.Commit = &o.Commit
	}
	if o.RevisionID != "" {
		m.Revision = &o.RevisionID
	}
	return m
}

// spaceGitInfo is the space's GitSyncState (read access); 404 when no Git
// Sync was ever set up on it.
func (r *Resolver) spaceGitInfo(ctx context.Context, spaceID string) (*model.GitSyncState, error) {
	cs, err := r.contentSpace(ctx, spaceID, false)
	if err != nil {
		return nil, err
	}
	st, err := r.Store.GitSyncState(ctx, cs.Head.ID)
	if err != nil {
		return nil, notFoundAs(err, "Git Sync set-up")
	}
	m := gitSyncStateModel(storage.SpaceGitSync{URL: st.URL, TreeURL: st.TreeURL, Provider: st.Provider, UpdatedAt: st.UpdatedAt})
	if st.OperationID != "" {
		if op, err := r.Store.GitOperation(ctx, cs.Head.ID, st.OperationID); err == nil {
			m.Operation = gitOperationModel(op)
		} else if !errors.Is(err, storage.ErrNotFound) {
			return nil, err
		}
	}
	return m, nil
}

// gitSyncStateModel is a GitSyncState in 0.130.0's shape (git/info and
// the Space's gitSync field): the repository's name, its tree URL (else
// its URL without credentials), the provider when one was named.
func gitSyncStateModel(st storage.SpaceGitSync) *model.GitSyncState {
	name := strings.TrimSuffix(path.Base(strings.TrimRight(st.URL, "/")), ".git")
	integration, updated := "docsapi", model.Time(st.UpdatedAt)
	url := st.URL
	if st.TreeURL != "" {
		url = st.TreeURL
	}
	m := &model.GitSyncState{RepoName: &name, Integration: &integration, URL: &url, UpdatedAt: &updated}
	if st.Provider != "" {
		m.InstallationProvider = &st.Provider
	}
	return m
}

// deleteLegacyGitInstallation needs the admin role on the space.
func (r *Resolver) deleteLegacyGitInstallation(ctx context.Context, spaceID string) (bool, error) {
	sp, s, err := r.spaceScope(ctx, spaceID, chainOnly, false)
	if err != nil {
		return false, err
	}
	if err := s.require("admin", "removing the legacy Git Sync installation"); err != nil {
		return false, err
	}
	ctx = recordChange(ctx, sp.OrganizationID, "space.git_legacy_removed", "space", sp.ID, nil)
	return r.Store.DeleteLegacyGitInstallation(ctx, sp.ID)
}

// revisionGit is a revision's Git commit for its model (nil without one).
func (r *Resolver) revisionGit(ctx context.Context, revID string) (*model.RevisionGit, error) {
	g, err := r.Store.RevisionGit(ctx, revID)
	if g == nil || err != nil {
		return nil, err
	}
	m := &model.RevisionGit{Oid: g.Oid, Message: g.Message, CreatedByService: g.CreatedByService, CreatedByGitBook: g.CreatedByService}
	if g.URL != "" {
		m.URL = &g.URL
	}
	if g.Ref != "" {
		m.Ref = &g.Ref
	}
	return m, nil
}

// ---- the worker ----

// GitSyncStore is what the worker needs of the storage beyond Store.
type GitSyncStore interface {
	ClaimGitOperation(ctx context.Context) (*storage.GitOperation, error)
	RenewGitOperation(ctx context.Context, id string) (bool, error)
	SetGitOperationStage(ctx context.Context, id, stage string) error
	ReleaseGitOperation(ctx context.Context, id string) error
	FinishGitOperation(ctx context.Context, op storage.GitOperation, out storage.GitOutcome) error
	FinishGitOperationIn(tx *storage.Tx, op storage.GitOperation, out storage.GitOutcome) error
}

// GitSyncWorker runs the Git Sync queue.
type GitSyncWorker struct {
	R      *Resolver
	Queue  GitSyncStore
	Doer   gitsync.Doer // the guarded client (fetch.Fetcher)
	Limits gitsync.Limits
	Lease  time.Duration
	Poll   time.Duration // between looks at the queue without a wake-up (0: 5s)
	Log    *slog.Logger
	After  func(took time.Duration, err error) // metrics
}

// Run takes operations until ctx ends; wake shortens the wait after a
// request queued one.
func (w *GitSyncWorker) Run(ctx context.Context, wake <-chan struct{}) {
	poll := w.Poll
	if poll <= 0 {
		poll = 5 * time.Second
	}
	for {
		for ctx.Err() == nil {
			ran, err := w.RunOne(ctx)
			if err != nil && ctx.Err() == nil && w.Log != nil {
				w.Log.Error("git sync", "error", err)
			}
			if !ran || err != nil {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-time.After(poll):
		}
	}
}

// RunOne claims and runs one operation; false when none was waiting.
func (w *GitSyncWorker) RunOne(ctx context.Context) (bool, error) {
	job, err := w.Queue.ClaimGitOperation(ctx)
	if job == nil || err != nil {
		return false, err
	}
	start := time.Now()
	jobCtx, stop := storage.KeepLease(ctx, w.Lease, func(c context.Context) (bool, error) { return w.Queue.RenewGitOperation(c, job.ID) })
	defer stop()
	err = w.run(jobCtx, *job)
	if w.After != nil {
		w.After(time.Since(start), err)
	}
	if ctx.Err() != nil { // stopping: another run picks it up
		_ = w.Queue.ReleaseGitOperation(context.WithoutCancel(ctx), job.ID)
		return true, nil
	}
	if errors.Is(err, storage.ErrGitLeaseLost) || jobCtx.Err() != nil {
		return true, nil // another replica owns it now
	}
	return true, err
}

func (w *GitSyncWorker) run(ctx context.Context, op storage.GitOperation) error {
	ctx = auth.WithCaller(ctx, auth.Caller{UserID: op.UserID, Kind: "api"})
	var p gitParams
	_ = json.Unmarshal([]byte(op.Params), &p)
	st, err := w.R.Store.GitSyncState(ctx, op.SpaceID)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	if st.LastTimestamp.After(op.Timestamp) {
		return w.finish(ctx, op, storage.GitOutcome{Status: "skipped",
			Message: fmt.Sprintf("a newer operation (of %s) was applied first", model.Time(st.LastTimestamp))})
	}
	tmp, err := os.MkdirTemp("", "docsapi-git-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var out storage.GitOutcome
	if op.Kind == "export" {
		out, err = w.export(ctx, op, p, st, tmp)
	} else {
		out, err = w.importRepo(ctx, op, p, st, tmp)
	}
	if err == nil {
		return nil // written with its outcome
	}
	var ge *gitsync.Error
	var ae *apierr.Error
	switch {
	case errors.Is(err, storage.ErrGitLeaseLost), ctx.Err() != nil:
		return err
	case errors.Is(err, storage.ErrChangeRequestClosed):
		out = storage.GitOutcome{Status: "failed", Message: "change request " + p.ChangeRequest + " was merged or archived before the import could write to it"}
	case errors.Is(err, storage.ErrGitSuperseded):
		out = storage.GitOutcome{Status: "skipped", Message: "a newer operation was applied while this one ran"}
	case errors.As(err, &ge):
		out = storage.GitOutcome{Status: "failed", Message: ge.Msg}
	case errors.As(err, &ae):
		out = storage.GitOutcome{Status: "failed", Message: ae.Message}
	default:
		if w.Log != nil {
			w.Log.Error("git sync operation failed", "operation", op.ID, "error", err)
		}
		out = storage.GitOutcome{Status: "failed", Message: "internal error; see the server's log"}
	}
	return w.finish(ctx, op, out)
}

// completed is the change a finished operation records (audit entry and
// the space.git-synced webhook event).
func completed(ctx context.Context, op storage.GitOperation, out storage.GitOutcome) context.Context {
	return recordChange(ctx, op.OrganizationID, "space.git_synced", "space", op.SpaceID, map[string]any{
		"operation": op.ID, "kind": op.Kind, "status": out.Status, "message": out.Message, "commit": out.Commit, "revision": out.RevisionID,
		"url": op.URL, "ref": op.Ref})
}

func (w *GitSyncWorker) finish(ctx context.Context, op storage.GitOperation, out storage.GitOutcome) error {
	return w.Queue.FinishGitOperation(completed(ctx, op, out), op, out)
}

func (w *GitSyncWorker) stage(ctx context.Context, op storage.GitOperation, stage string) error {
	return w.Queue.SetGitOperationStage(ctx, op.ID, stage)
}

func remoteOf(op storage.GitOperation) (gitsync.Remote, error) {
	rem, _, err := gitsync.ParseRemote(op.RemoteURL, op.Ref)
	return rem, err
}

func (w *GitSyncWorker) importRepo(ctx context.Context, op storage.GitOperation, p gitParams, st storage.GitSyncState, tmp string) (storage.GitOutcome, error) {
	cs, err := w.R.contentSpace(ctx, op.SpaceID, true) // the user may still edit it
	if err != nil {
		return storage.GitOutcome{}, err
	}
	rem, err := remoteOf(op)
	if err != nil {
		return storage.GitOutcome{}, err
	}
	if err := w.stage(ctx, op, "fetching"); err != nil {
		return storage.GitOutcome{}, err
	}
	snap, err := gitsync.Read(ctx, w.Doer, rem, p.ProjectDir, tmp, w.Limits)
	if err != nil {
		return storage.GitOutcome{}, err
	}
	toMain := !p.Standalone && p.ChangeRequest == ""
	if !p.Force && toMain && snap.Commit == st.Commit {
		out := storage.GitOutcome{Status: "skipped", Commit: snap.Commit, Message: "the space is already synced with commit " + snap.Commit + " (force imports it again)"}
		return out, w.finish(ctx, op, out)
	}
	if err := w.stage(ctx, op, "converting"); err != nil {
		return storage.GitOutcome{}, err
	}
	var lim importer.Limits // the deployment's import limits (--import-max-files, --import-max-unpacked)
	if d, ok := w.R.Fetcher.(interface{ ImportLimits() importer.Limits }); ok {
		lim = d.ImportLimits()
	}
	res, err := importRepository(ctx, snap.Files, lim)
	if err != nil {
		var ie *importer.Error
		if errors.As(err, &ie) {
			return storage.GitOutcome{}, &gitsync.Error{Code: "invalid", Msg: ie.Msg}
		}
		return storage.GitOutcome{}, err
	}
	res.AssignReusableIDs(storage.NewID) // before the bodies are parsed: it rewrites their includes
	ctx, err = prepareBodies(ctx, importedBodies(res.Pages, nil)...)
	if err != nil {
		return storage.GitOutcome{}, err
	}
	if err := w.stage(ctx, op, "writing"); err != nil {
		return storage.GitOutcome{}, err
	}
	commitURL := ""
	if p.CommitURL != "" {
		commitURL = strings.TrimRight(p.CommitURL, "/") + "/" + snap.Commit
	}
	// Into a change request, as standalone: the main content and the
	// space's synced commit stay as they are.
	out := storage.GitOutcome{Status: "completed", Commit: snap.Commit, Applied: toMain,
		Git: &storage.RevisionGit{Oid: snap.Commit, Message: strings.TrimSpace(snap.Message), URL: commitURL, Ref: op.Ref}}
	revID := storage.NewID()
	out.RevisionID = revID
	out.Message = fmt.Sprintf("imported commit %s: %d pages, %d files", short(snap.Commit), countPages(res.Pages), len(res.Files))
	if p.ChangeRequest != "" {
		out.Message += " into change request " + p.ChangeRequest
	}
	c := storage.RevisionChange{ID: revID, SpaceID: cs.Head.ID, Type: "edits", Activate: toMain, ChangeRequest: p.ChangeRequest,
		Author: op.UserID, Analyzer: w.R.analyzerFor(ctx), Batched: true,
		Edit: func(t *storage.Tree) error {
			// Import wins on import: the ref's files are the space's content.
			t.Pages, t.Files, t.ReusableContents = treePages(res.Pages), nil, nil
			for _, f := range res.Files {
				t.Files = append(t.Files, newFile(f.Name, f.ContentType, f.Data))
			}
			for _, rc := range res.Reusable { // .gitbook/includes, as a zip import stores them
				t.ReusableContents = append(t.ReusableContents, map[string]any{"id": rc.ID, "title": rc.Title, reusableBodyKey: rc.Markdown})
			}
			return nil
		},
		Also: func(tx *storage.Tx, id string) error { return w.Queue.FinishGitOperationIn(tx, op, out) }}
	if toMain {
		ctx = storage.RecordingChange(ctx, storage.PageChanged(cs.Head.OrganizationID, cs.Head.ID, revID))
	}
	if _, err := w.R.Store.CreateRevision(completed(ctx, op, out), c); err != nil {
		return out, err
	}
	return out, nil
}

func countPages(pages []*importer.Page) int {
	n := len(pages)
	for _, p := range pages {
		n += countPages(p.Children)
	}
	return n
}

func short(oid string) string {
	if len(oid) > 12 {
		return oid[:12]
	}
	return oid
}

// exportOwned are the files an export writes and so replaces: Markdown
// files and GitBook's assets folder. Other files of the repository (CI
// configuration, code) stay as they are.
func exportOwned(name string) bool {
	return strings.HasSuffix(strings.ToLower(name), ".md") || strings.HasPrefix(name, ".gitbook/assets/") || name == ".gitbook.yaml"
}

func (w *GitSyncWorker) export(ctx context.Context, op storage.GitOperation, p gitParams, st storage.GitSyncState, tmp string) (storage.GitOutcome, error) {
	cs, err := w.R.contentSpace(ctx, op.SpaceID, true)
	if err != nil {
		return storage.GitOutcome{}, err
	}
	rem, err := remoteOf(op)
	if err != nil {
		return storage.GitOutcome{}, err
	}
	if err := w.stage(ctx, op, "converting"); err != nil {
		return storage.GitOutcome{}, err
	}
	revID := cs.Head.Revision
	files, err := w.R.revisionRepository(ctx, cs.Head.ID, revID)
	if err != nil {
		return storage.GitOutcome{}, err
	}
	user, err := w.R.Store.UserByID(ctx, op.UserID)
	if err != nil {
		return storage.GitOutcome{}, err
	}
	name := user.DisplayName
	if name == "" {
		name = user.Email
	}
	msg := strings.TrimRight(p.CommitMessage, "\n") + "\n\nGitBook-Revision: " + revID + "\n"
	if err := w.stage(ctx, op, "pushing"); err != nil {
		return storage.GitOutcome{}, err
	}
	pushed, err := gitsync.Write(ctx, w.Doer, rem, p.ProjectDir, tmp, files, exportOwned,
		gitsync.Commit{Name: name, Email: user.Email, Message: msg, When: w.R.Now()}, st.Commit, p.Force, w.Limits)
	if err != nil {
		return storage.GitOutcome{}, err
	}
	out := storage.GitOutcome{Status: "completed", Commit: pushed.Commit, RevisionID: revID, Applied: true}
	if !pushed.Changed {
		out.Message = fmt.Sprintf("nothing to commit: %s already holds revision %s", op.Ref, revID)
	} else {
		out.Message = fmt.Sprintf("pushed commit %s on %s", short(pushed.Commit), op.Ref)
		commitURL := ""
		if p.CommitURL != "" {
			commitURL = strings.TrimRight(p.CommitURL, "/") + "/" + pushed.Commit
		}
		out.Git = &storage.RevisionGit{Oid: pushed.Commit, Message: strings.TrimSpace(msg), CreatedByService: true, URL: commitURL, Ref: op.Ref}
	}
	return out, w.finish(ctx, op, out)
}

func isTrue(b *bool) bool { return b != nil && *b }

// importRepository reads a checked-out tree in GitBook's layout (branch
// gitmd's importer.Repository, shared with zip imports).
func importRepository(ctx context.Context, files map[string][]byte, lim importer.Limits) (*importer.Result, error) {
	return importer.Repository(ctx, files, lim)
}
