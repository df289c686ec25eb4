// Package gitsync is Git Sync's transport: it reads the files of one ref
// of a remote repository and pushes one commit of files to it, over Git's
// smart HTTP(S) protocol with basic auth (go-git, pure Go). Every request
// goes through the caller's guarded HTTP client (fetch.Fetcher, given in
// the context), so the addresses the deployment refuses stay refused; the
// pack, the files, their number and depth and the whole operation's time
// are bounded. Objects are kept in a temporary folder, not in memory, and
// a file is read only once its size has been checked. The package knows
// nothing of spaces or storage: graph/ turns files into revisions.
package gitsync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Limits bound one operation. Zero fields take DefaultLimits.
type Limits struct {
	MaxPackBytes int64         // bytes received from the server (the pack and its ref list)
	MaxFiles     int           // files in the ref's tree (under the project directory)
	MaxDepth     int           // folders above a file
	MaxFileBytes int64         // one file
	MaxBytes     int64         // all files read
	Timeout      time.Duration // the whole operation
}

// DefaultLimits fit a real documentation repository (hundreds of pages,
// 600 assets, 130 MiB) with room to spare.
var DefaultLimits = Limits{MaxPackBytes: 256 << 20, MaxFiles: 20000, MaxDepth: 32, MaxFileBytes: 50 << 20, MaxBytes: 256 << 20, Timeout: 5 * time.Minute}

// OrDefault is l with its zero fields taken from DefaultLimits.
func (l Limits) OrDefault() Limits {
	d := DefaultLimits
	if l.MaxPackBytes <= 0 {
		l.MaxPackBytes = d.MaxPackBytes
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = d.MaxFiles
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = d.MaxDepth
	}
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = d.MaxFileBytes
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = d.MaxBytes
	}
	if l.Timeout <= 0 {
		l.Timeout = d.Timeout
	}
	return l
}

// Error is a failure the user can act on (a refused address, a missing
// ref, a limit, a conflict); Code classifies it.
type Error struct {
	Code string // invalid | blocked | auth | not-found | too-large | non-fast-forward | remote | timeout
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

func fail(code, format string, args ...any) error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// Remote is a repository and one of its refs, with the credentials the
// URL carried (never shown: URL is without them).
type Remote struct {
	URL      string
	Username string
	Password string
	Ref      plumbing.ReferenceName
}

// refPattern: a branch ("refs/heads/x") or a tag, as git check-ref-format
// allows most names; anything odd is refused before it reaches a server.
var refPattern = regexp.MustCompile(`^refs/(heads|tags)/[A-Za-z0-9._/+-]{1,200}$`)

// ParseRemote splits rawURL's credentials off and checks ref (a short
// branch name "main" is read as "refs/heads/main"). field names the
// input in errors ("url" or "ref").
func ParseRemote(rawURL, ref string) (Remote, string, error) {
	var r Remote
	if len(rawURL) > 2048 {
		return r, "url", fail("invalid", "is longer than 2048 characters")
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return r, "url", fail("invalid", "must be an http(s) URL of a Git repository")
	}
	if u.User != nil {
		r.Username = u.User.Username()
		r.Password, _ = u.User.Password()
		u.User = nil
	}
	u.Fragment, u.RawFragment = "", ""
	r.URL = u.String()
	if !strings.HasPrefix(ref, "refs/") {
		ref = "refs/heads/" + ref
	}
	if !refPattern.MatchString(ref) || strings.Contains(ref, "..") || strings.Contains(ref, "//") || strings.HasSuffix(ref, "/") ||
		strings.HasSuffix(ref, ".lock") || strings.HasSuffix(ref, ".") || strings.Contains(ref, "/.") {
		return r, "ref", fail("invalid", "must be a branch or tag ref such as refs/heads/main")
	}
	r.Ref = plumbing.ReferenceName(ref)
	return r, "", nil
}

// Doer sends a request through the deployment's guard (fetch.Fetcher).
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

type doerKey struct{}

// guardedTransport hands every request go-git makes to the Doer of the
// request's context and bounds the bytes it receives; a request without
// one (nothing in docsapi makes such) is refused. go-git keeps its
// transports in a process-wide table, so this one is installed once for
// http and https and the per-operation client travels in the context.
type guardedTransport struct{}

type budget struct {
	left int64
}

type budgetKey struct{}

func (guardedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	d, _ := req.Context().Value(doerKey{}).(Doer)
	if d == nil {
		return nil, errors.New("gitsync: no guarded client for this request")
	}
	res, err := d.Do(req)
	if err != nil {
		return nil, err
	}
	if b, _ := req.Context().Value(budgetKey{}).(*budget); b != nil {
		res.Body = &boundedBody{ReadCloser: res.Body, b: b}
	}
	return res, nil
}

// errPackTooLarge ends a transfer past Limits.MaxPackBytes.
var errPackTooLarge = errors.New("gitsync: the repository sent more than the limit")

type boundedBody struct {
	io.ReadCloser
	b *budget
}

func (r *boundedBody) Read(p []byte) (int, error) {
	if r.b.left <= 0 {
		return 0, errPackTooLarge
	}
	if int64(len(p)) > r.b.left {
		p = p[:r.b.left]
	}
	n, err := r.ReadCloser.Read(p)
	r.b.left -= int64(n)
	return n, err
}

func init() {
	t := githttp.NewClient(&http.Client{Transport: guardedTransport{}, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse // the guard follows (and checks) redirects itself
	}})
	client.InstallProtocol("http", t)
	client.InstallProtocol("https", t)
}

// session is one operation's context, temporary object store and limits.
type session struct {
	ctx    context.Context
	lim    Limits
	remote Remote
	repo   *git.Repository
	budget *budget
}

func open(ctx context.Context, d Doer, rem Remote, dir string, lim Limits) (*session, context.CancelFunc, error) {
	lim = lim.OrDefault()
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	b := &budget{left: lim.MaxPackBytes}
	ctx = context.WithValue(context.WithValue(ctx, doerKey{}, d), budgetKey{}, b)
	st := filesystem.NewStorage(osfs.New(dir), cache.NewObjectLRU(8<<20))
	repo, err := git.Init(st, nil)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{rem.URL}}); err != nil {
		cancel()
		return nil, nil, err
	}
	return &session{ctx: ctx, lim: lim, remote: rem, repo: repo, budget: b}, cancel, nil
}

func (s *session) auth() transport.AuthMethod {
	if s.remote.Username == "" && s.remote.Password == "" {
		return nil
	}
	return &githttp.BasicAuth{Username: s.remote.Username, Password: s.remote.Password}
}

// tracking is where the fetched ref is kept locally.
const tracking = plumbing.ReferenceName("refs/remotes/origin/synced")

// fetchTip fetches the ref's tip, one commit deep; nil when the ref (or
// the whole repository) does not exist yet.
func (s *session) fetchTip() (*object.Commit, error) {
	spec := config.RefSpec("+" + s.remote.Ref.String() + ":" + tracking.String())
	err := s.repo.FetchContext(s.ctx, &git.FetchOptions{RemoteName: "origin", RefSpecs: []config.RefSpec{spec}, Depth: 1, Auth: s.auth(), Tags: git.NoTags})
	var noMatch git.NoMatchingRefSpecError
	switch {
	case err == nil, errors.Is(err, git.NoErrAlreadyUpToDate):
	case errors.Is(err, transport.ErrEmptyRemoteRepository), errors.As(err, &noMatch):
		return nil, nil
	default:
		return nil, s.wrap(err)
	}
	ref, err := s.repo.Reference(tracking, true)
	if err != nil {
		return nil, nil
	}
	c, err := s.repo.CommitObject(ref.Hash())
	if err != nil { // a tag of a tree or blob
		return nil, fail("invalid", "%s does not point to a commit", s.remote.Ref)
	}
	return c, nil
}

// wrap words a transport failure for the user.
func (s *session) wrap(err error) error {
	var ge *Error
	switch {
	case errors.As(err, &ge):
		return err
	case errors.Is(err, errPackTooLarge), s.budget.left <= 0:
		return fail("too-large", "the repository sent more than %d bytes; fetch a smaller ref or raise the limit", s.lim.MaxPackBytes)
	case errors.Is(s.ctx.Err(), context.DeadlineExceeded):
		return fail("timeout", "the Git operation took longer than %s", s.lim.Timeout)
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed):
		return fail("auth", "the Git server refused the credentials (give them in the URL: https://user:token@host/repo.git)")
	case errors.Is(err, transport.ErrRepositoryNotFound):
		return fail("not-found", "no Git repository at %s", s.remote.URL)
	}
	var fe interface{ Timeout() bool }
	if errors.As(err, &fe) && fe.Timeout() {
		return fail("timeout", "the Git operation took longer than %s", s.lim.Timeout)
	}
	return fail("remote", "%s", redact(err.Error(), s.remote))
}

// redact removes the credentials from a message that might echo them.
func redact(msg string, rem Remote) string {
	for _, secret := range []string{rem.Password, url.QueryEscape(rem.Password)} {
		if len(secret) >= 3 {
			msg = strings.ReplaceAll(msg, secret, "***")
		}
	}
	return msg
}

// Snapshot is the files of a ref's tip under the project directory.
type Snapshot struct {
	Commit  string
	Message string
	Files   map[string][]byte // path relative to the project directory
}

// cleanDir checks a project directory ("" or "/" for the root).
func cleanDir(dir string) (string, error) {
	dir = strings.Trim(dir, "/")
	if dir == "" {
		return "", nil
	}
	if len(dir) > 512 || path.Clean(dir) != dir || strings.HasPrefix(dir, "..") || strings.Contains(dir, "\\") {
		return "", fail("invalid", "repoProjectDirectory must be a plain relative folder such as docs")
	}
	return dir, nil
}

// CheckProjectDirectory reports whether dir is usable as repoProjectDirectory.
func CheckProjectDirectory(dir string) error {
	_, err := cleanDir(dir)
	return err
}

// Read fetches the ref's tip (one commit deep, objects in folder tmp) and
// reads its files under projectDir, within lim.
func Read(ctx context.Context, d Doer, rem Remote, projectDir, tmp string, lim Limits) (*Snapshot, error) {
	dir, err := cleanDir(projectDir)
	if err != nil {
		return nil, err
	}
	s, cancel, err := open(ctx, d, rem, tmp, lim)
	if err != nil {
		return nil, err
	}
	defer cancel()
	tip, err := s.fetchTip()
	if err != nil {
		return nil, err
	}
	if tip == nil {
		return nil, fail("not-found", "the repository has no ref %s", rem.Ref)
	}
	root, err := tip.Tree()
	if err != nil {
		return nil, s.wrap(err)
	}
	if dir != "" {
		if root, err = root.Tree(dir); err != nil {
			return nil, fail("not-found", "commit %s has no folder %s", tip.Hash, dir)
		}
	}
	files := map[string][]byte{}
	var total int64
	err = s.walk(root, "", 0, func(name string, e object.TreeEntry) error {
		if len(files) == s.lim.MaxFiles {
			return fail("too-large", "the repository has more than %d files under %q; raise the limit or set repoProjectDirectory", s.lim.MaxFiles, "/"+dir)
		}
		blob, err := s.repo.BlobObject(e.Hash)
		if err != nil {
			return s.wrap(err)
		}
		if blob.Size > s.lim.MaxFileBytes {
			return fail("too-large", "%s is %d bytes; a file may have at most %d", name, blob.Size, s.lim.MaxFileBytes)
		}
		if total += blob.Size; total > s.lim.MaxBytes {
			return fail("too-large", "the files under %q hold more than %d bytes", "/"+dir, s.lim.MaxBytes)
		}
		r, err := blob.Reader()
		if err != nil {
			return s.wrap(err)
		}
		data, err := io.ReadAll(io.LimitReader(r, blob.Size))
		r.Close()
		if err != nil {
			return s.wrap(err)
		}
		files[name] = data
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Snapshot{Commit: tip.Hash.String(), Message: tip.Message, Files: files}, nil
}

// walk calls fn for every regular file under t, checking the depth before
// descending; symbolic links and submodules are left out.
func (s *session) walk(t *object.Tree, prefix string, depth int, fn func(string, object.TreeEntry) error) error {
	if err := s.ctx.Err(); err != nil {
		return s.wrap(err)
	}
	for _, e := range t.Entries {
		name := prefix + e.Name
		switch e.Mode {
		case filemode.Dir:
			if depth+1 > s.lim.MaxDepth {
				return fail("too-large", "%s/ is nested more than %d folders deep", name, s.lim.MaxDepth)
			}
			sub, err := s.repo.TreeObject(e.Hash)
			if err != nil {
				return s.wrap(err)
			}
			if err := s.walk(sub, name+"/", depth+1, fn); err != nil {
				return err
			}
		case filemode.Regular, filemode.Executable, filemode.Deprecated:
			if err := fn(name, e); err != nil {
				return err
			}
		}
	}
	return nil
}

// Commit describes the commit an export makes.
type Commit struct {
	Name, Email, Message string
	When                 time.Time
}

// Pushed is what an export did.
type Pushed struct {
	Commit  string // the ref's tip after the export
	Parent  string // the tip before ("" for a new ref)
	Changed bool   // false: the tree was already the same, nothing was pushed
}

// Owned says which files of the project directory an export replaces
// (those the space's layout writes); the others stay as they are.
type Owned func(name string) bool

// Write fetches the ref's tip, replaces the files owned under projectDir
// by files, and, when the tree changed, pushes one commit on top of the
// tip. expect is the commit the caller last synced with: when the tip is
// another one the remote has changes the caller has not seen, and Write
// refuses (non-fast-forward) unless force.
func Write(ctx context.Context, d Doer, rem Remote, projectDir, tmp string, files map[string][]byte, owned Owned, c Commit, expect string, force bool, lim Limits) (*Pushed, error) {
	dir, err := cleanDir(projectDir)
	if err != nil {
		return nil, err
	}
	s, cancel, err := open(ctx, d, rem, tmp, lim)
	if err != nil {
		return nil, err
	}
	defer cancel()
	if len(files) > s.lim.MaxFiles {
		return nil, fail("too-large", "the export has %d files; at most %d are written", len(files), s.lim.MaxFiles)
	}
	tip, err := s.fetchTip()
	if err != nil {
		return nil, err
	}
	out := &Pushed{}
	entries := map[string]object.TreeEntry{}
	var parents []plumbing.Hash
	var oldTree plumbing.Hash
	if tip != nil {
		out.Parent, out.Commit = tip.Hash.String(), tip.Hash.String()
		if expect != "" && expect != out.Parent && !force {
			return nil, fail("non-fast-forward", "%s moved to %s since the space last synced with %s; import it first, or export with force to write the space over it", rem.Ref, short(out.Parent), short(expect))
		}
		parents, oldTree = []plumbing.Hash{tip.Hash}, tip.TreeHash
		root, err := tip.Tree()
		if err != nil {
			return nil, s.wrap(err)
		}
		err = s.walk(root, "", 0, func(name string, e object.TreeEntry) error {
			if len(entries) == s.lim.MaxFiles {
				return fail("too-large", "the repository has more than %d files", s.lim.MaxFiles)
			}
			rel, inside := strings.CutPrefix(name, dir+"/")
			if dir == "" {
				rel, inside = name, true
			}
			if !inside || !owned(rel) {
				entries[name] = e
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	var total int64
	for name, data := range files {
		if total += int64(len(data)); total > s.lim.MaxBytes {
			return nil, fail("too-large", "the export holds more than %d bytes", s.lim.MaxBytes)
		}
		full := name
		if dir != "" {
			full = dir + "/" + name
		}
		if strings.Count(full, "/") > s.lim.MaxDepth {
			return nil, fail("too-large", "%s is nested more than %d folders deep", full, s.lim.MaxDepth)
		}
		h, err := s.storeBlob(data)
		if err != nil {
			return nil, err
		}
		entries[full] = object.TreeEntry{Name: path.Base(full), Mode: filemode.Regular, Hash: h}
	}
	treeHash, err := s.storeTree(entries)
	if err != nil {
		return nil, err
	}
	if treeHash == oldTree {
		return out, nil
	}
	sig := object.Signature{Name: c.Name, Email: c.Email, When: c.When}
	commit := &object.Commit{Author: sig, Committer: sig, Message: c.Message, TreeHash: treeHash, ParentHashes: parents}
	obj := s.repo.Storer.NewEncodedObject()
	if err := commit.Encode(obj); err != nil {
		return nil, err
	}
	h, err := s.repo.Storer.SetEncodedObject(obj)
	if err != nil {
		return nil, err
	}
	local := plumbing.ReferenceName("refs/heads/docsapi-export")
	if err := s.repo.Storer.SetReference(plumbing.NewHashReference(local, h)); err != nil {
		return nil, err
	}
	// Built on the tip just fetched: a plain (fast-forward) push, which the
	// server refuses if the ref moved meanwhile.
	spec := config.RefSpec(local.String() + ":" + rem.Ref.String())
	if err := s.repo.PushContext(s.ctx, &git.PushOptions{RemoteName: "origin", RefSpecs: []config.RefSpec{spec}, Auth: s.auth()}); err != nil {
		if errors.Is(err, git.ErrNonFastForwardUpdate) || strings.Contains(err.Error(), "non-fast-forward") {
			return nil, fail("non-fast-forward", "%s moved while exporting; export again", rem.Ref)
		}
		return nil, s.wrap(err)
	}
	out.Commit, out.Changed = h.String(), true
	return out, nil
}

func short(oid string) string {
	if len(oid) > 12 {
		return oid[:12]
	}
	return oid
}

func (s *session) storeBlob(data []byte) (plumbing.Hash, error) {
	obj := s.repo.Storer.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	obj.SetSize(int64(len(data)))
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.repo.Storer.SetEncodedObject(obj)
}

// storeTree writes the trees holding entries (full paths) and returns the
// root's hash.
func (s *session) storeTree(entries map[string]object.TreeEntry) (plumbing.Hash, error) {
	type dirNode struct {
		files map[string]object.TreeEntry
		dirs  map[string]*dirNode
	}
	newDir := func() *dirNode { return &dirNode{files: map[string]object.TreeEntry{}, dirs: map[string]*dirNode{}} }
	root := newDir()
	for full, e := range entries {
		parts := strings.Split(full, "/")
		n := root
		for _, p := range parts[:len(parts)-1] {
			if n.dirs[p] == nil {
				n.dirs[p] = newDir()
			}
			n = n.dirs[p]
		}
		e.Name = parts[len(parts)-1]
		n.files[e.Name] = e
	}
	var write func(n *dirNode) (plumbing.Hash, error)
	write = func(n *dirNode) (plumbing.Hash, error) {
		t := &object.Tree{}
		for name, sub := range n.dirs {
			h, err := write(sub)
			if err != nil {
				return h, err
			}
			if _, clash := n.files[name]; clash {
				return h, fail("invalid", "%s is both a file and a folder", name)
			}
			t.Entries = append(t.Entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
		}
		for _, e := range n.files {
			t.Entries = append(t.Entries, e)
		}
		// Git orders entries by name, a folder's name as if followed by "/".
		key := func(e object.TreeEntry) string {
			if e.Mode == filemode.Dir {
				return e.Name + "/"
			}
			return e.Name
		}
		sort.Slice(t.Entries, func(i, j int) bool { return key(t.Entries[i]) < key(t.Entries[j]) })
		obj := s.repo.Storer.NewEncodedObject()
		if err := t.Encode(obj); err != nil {
			return plumbing.ZeroHash, err
		}
		return s.repo.Storer.SetEncodedObject(obj)
	}
	return write(root)
}
