package rest

import (
	"net/http"
	"sync"

	"docsapi/auth"
	"docsapi/graph"
	"docsapi/storage"
)

// Answers of the most-read single resources (GET organization, GET space)
// are kept encoded, with their ETag, between writes: a repeat GET by the
// same caller while no write has committed anywhere (the request's
// counters, storage.VersionOf, are the ones the answer was computed under)
// writes the stored bytes, skipping the resolver, the JSON encoding and
// the ETag's hash. The answer depends on the database state, the caller
// (permissions fields, what they may see) and the path; requests carrying
// anything else the resolvers read (a query string such as shareKey, the
// share link password) are computed as always, and so are refusals.

// answerKey is what a stored answer was computed for.
type answerKey struct {
	route, id string
	caller    auth.Caller
}

// StoredAnswer is an encoded answer and the counters it was computed under.
type StoredAnswer struct {
	Version storage.Version
	Body    []byte   // shared between requests: written, never changed
	ETag    []string // the ETag header's value (REST), likewise
}

// AnswerCache keeps encoded answers by what they were computed for (K) and
// serves one only to a request whose counters are the ones it was computed
// under. It holds at most maxAnswers answers and empties when full, like
// the storage caches. REST's GET organization / GET space and the GraphQL
// fast path (server/graphqlfast.go) keep theirs in one each.
type AnswerCache[K comparable] struct {
	mu sync.RWMutex
	m  map[K]StoredAnswer
}

const maxAnswers = 10_000

// Get is k's stored answer when it was computed under v.
func (c *AnswerCache[K]) Get(k K, v storage.Version) (StoredAnswer, bool) {
	c.mu.RLock()
	s, ok := c.m[k]
	c.mu.RUnlock()
	return s, ok && s.Version == v
}

// Put stores s for k.
func (c *AnswerCache[K]) Put(k K, s StoredAnswer) {
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxAnswers {
		c.m = map[K]StoredAnswer{}
	}
	c.m[k] = s
	c.mu.Unlock()
}

// Storable reports whether the answer to ctx's request may be kept: an
// authenticated caller, counters read and no write made by the request
// since, no share-link password (the resolvers read it). It returns the
// caller and the counters the answer is valid for.
func Storable(r *http.Request) (auth.Caller, storage.Version, bool) {
	ctx := r.Context()
	caller, authenticated := auth.CallerFrom(ctx)
	version, counted := storage.VersionOf(ctx)
	// A site token's caller is new on every request (its grant is a
	// pointer): its answers would be stored and never found.
	ok := authenticated && counted && caller.Site == nil && r.Header.Get(graph.ShareLinkPasswordHeader) == ""
	return caller, version, ok
}

// StillAt reports whether the request still has the counters v it started
// with (it wrote nothing meanwhile), so what it computed may be kept.
func StillAt(r *http.Request, v storage.Version) bool {
	now, still := storage.VersionOf(r.Context())
	return still && now == v
}

// storedResource is resource (conditional.go) for a GET whose answer is a
// function of the database, the caller and the path parameter param only:
// route names the resource kind in the cache's keys.
func (a *API) storedResource(route, param string, get handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key, version, ok := answerKeyOf(r, route, param)
		if ok {
			if s, hit := a.answers.Get(key, version); hit {
				answer(w, r, s.Body, s.ETag)
				return
			}
		}
		body, etag, err := a.render(r, get)
		if err != nil {
			WriteError(w, r, a.Log, err)
			return
		}
		tag := []string{etag}
		// Kept only when the request still has the counters it started with
		// (it wrote nothing meanwhile).
		if ok && StillAt(r, version) {
			a.answers.Put(key, StoredAnswer{Version: version, Body: body, ETag: tag})
		}
		answer(w, r, body, tag)
	}
}

// answerKeyOf is r's key and counters, ok when its answer may be stored
// (Storable, and no query string: shareKey and the like).
func answerKeyOf(r *http.Request, route, param string) (answerKey, storage.Version, bool) {
	caller, version, ok := Storable(r)
	if !ok || r.URL.RawQuery != "" {
		return answerKey{}, version, false
	}
	return answerKey{route: route, id: path(r, param), caller: caller}, version, true
}
