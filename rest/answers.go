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

type storedAnswer struct {
	version storage.Version
	body    []byte   // shared between requests: written, never changed
	etag    []string // the ETag header's value, likewise
}

// answerCache holds at most maxAnswers answers and empties when full, like
// the storage caches.
type answerCache struct {
	mu sync.RWMutex
	m  map[answerKey]storedAnswer
}

const maxAnswers = 10_000

func (c *answerCache) get(k answerKey, v storage.Version) (storedAnswer, bool) {
	c.mu.RLock()
	s, ok := c.m[k]
	c.mu.RUnlock()
	return s, ok && s.version == v
}

func (c *answerCache) put(k answerKey, s storedAnswer) {
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxAnswers {
		c.m = map[answerKey]storedAnswer{}
	}
	c.m[k] = s
	c.mu.Unlock()
}

// storedResource is resource (conditional.go) for a GET whose answer is a
// function of the database, the caller and the path parameter param only:
// route names the resource kind in the cache's keys.
func (a *API) storedResource(route, param string, get handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key, version, ok := answerKeyOf(r, route, param)
		if ok {
			if s, hit := a.answers.get(key, version); hit {
				answer(w, r, s.body, s.etag)
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
		if now, still := storage.VersionOf(r.Context()); ok && still && now == version {
			a.answers.put(key, storedAnswer{version: version, body: body, etag: tag})
		}
		answer(w, r, body, tag)
	}
}

// answerKeyOf is r's key and counters, ok when its answer may be stored.
func answerKeyOf(r *http.Request, route, param string) (answerKey, storage.Version, bool) {
	ctx := r.Context()
	caller, authenticated := auth.CallerFrom(ctx)
	version, counted := storage.VersionOf(ctx)
	if !authenticated || !counted || r.URL.RawQuery != "" || r.Header.Get(graph.ShareLinkPasswordHeader) != "" {
		return answerKey{}, version, false
	}
	return answerKey{route: route, id: path(r, param), caller: caller}, version, true
}
