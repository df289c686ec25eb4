package rest

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"hash/fnv"
	"net/http"
	"strings"
	"sync"

	"docsapi/apierr"
	"docsapi/storage"
)

// Conditional requests on single resources, one mechanism for every family:
//
//	get := func(r *http.Request) (any, error) { return a.Q.Team(r.Context(), path(r, "organizationId"), path(r, "teamId")) }
//	r.Get(pattern, a.resource(get))                 // weak ETag, If-None-Match → 304
//	r.Patch(pattern, a.ifMatch(get, a.ok(...)))     // If-Match → 412 when changed
//	r.Delete(pattern, a.ifMatch(get, a.deleted(...)))
//
// The ETag is a hash of the JSON the GET answers, so it costs no SQL beyond
// the read itself and changes whenever anything the caller sees changes
// (permissions and counts included). It is weak because the representation
// is per caller and not byte-for-byte promised; If-Match compares weakly.

// etagOf is the weak ETag of an encoded JSON representation.
func etagOf(body []byte) string {
	sum := sha256.Sum256(body)
	return `W/"` + base64.RawURLEncoding.EncodeToString(sum[:16]) + `"`
}

// etagMatches reports whether an If-Match or If-None-Match value names tag:
// "*" or a comma-separated list, compared weakly (W/ ignored).
func etagMatches(header, tag string) bool {
	tag = strings.TrimPrefix(tag, "W/")
	for _, c := range strings.Split(header, ",") {
		c = strings.TrimSpace(c)
		if c == "*" || strings.TrimPrefix(c, "W/") == tag {
			return true
		}
	}
	return false
}

// resource answers a GET of one resource: 200 with its weak ETag, or 304
// (no body) when If-None-Match names the current ETag.
func (a *API) resource(get handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, tag, err := a.render(r, get)
		if err != nil {
			WriteError(w, r, a.Log, err)
			return
		}
		answer(w, r, body, []string{tag})
	}
}

// render is get's answer to r, encoded, and its ETag.
func (a *API) render(r *http.Request, get handler) ([]byte, string, error) {
	v, err := get(r)
	if err != nil {
		return nil, "", err
	}
	body, err := encodeJSON(v)
	if err != nil {
		return nil, "", err
	}
	return body, etagOf(body), nil
}

// answer writes a GET's 200 with body and its ETag (the header's value:
// a stored answer keeps it ready), or 304 when If-None-Match names the ETag.
func answer(w http.ResponseWriter, r *http.Request, body []byte, tag []string) {
	w.Header()["Etag"] = tag
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatches(inm, tag[0]) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeBody(w, http.StatusOK, body)
}

// ifMatch guards a write (PATCH, PUT, DELETE) of one resource. get is the
// handler of the same resource's GET. With If-Match, the write runs only
// when the current representation's ETag is listed; otherwise the answer is
// 412 with the current ETag. Without If-Match the write runs as always. A
// 200 answer of the write carries the new ETag.
//
// The ETag is compared twice. First here, before the write: a stale
// If-Match is refused before the body is even validated. Then inside the
// write's own transaction, once it holds the database's write lock
// (storage.WithPrecondition): no write can commit meanwhile, from this
// process or another replica, so the representation compared is the one
// the write changes, and a mismatch rolls the write back with 412. Two
// writes with one If-Match, on one replica or two, cannot both pass.
// Within a process, guarded writes to one resource path also wait for
// each other, so the loser is mostly refused by the first, cheaper check.
func (a *API) ifMatch(get handler, write http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		defer a.writeLocks.lock(r.URL.Path)()
		ctx := r.Context()
		if cond := r.Header.Get("If-Match"); cond != "" {
			if err := a.checkIfMatch(w, r, get, cond); err != nil {
				WriteError(w, r, a.Log, err)
				return
			}
			ctx = storage.WithPrecondition(ctx, func(ctx context.Context) error {
				return a.checkIfMatch(w, r.WithContext(ctx), get, cond)
			})
		}
		write(w, r.WithContext(context.WithValue(ctx, etagWanted{}, true)))
	}
}

// checkIfMatch renders the resource by its GET and compares its ETag with
// the If-Match value cond: nil when it matches, else a 412 (the current ETag
// in the answer's ETag header) or the GET's error.
func (a *API) checkIfMatch(w http.ResponseWriter, r *http.Request, get handler, cond string) error {
	v, err := get(r)
	if e, ok := apierr.As(err); ok && e.Status == http.StatusNotFound {
		return apierr.New(http.StatusPreconditionFailed, "If-Match: the resource does not exist")
	}
	if err != nil {
		return err
	}
	body, err := encodeJSON(v)
	if err != nil {
		return err
	}
	if tag := etagOf(body); !etagMatches(cond, tag) {
		w.Header().Set("ETag", tag)
		return apierr.New(http.StatusPreconditionFailed, "If-Match: the resource has changed; its current ETag is %s", tag)
	}
	return nil
}

type etagWanted struct{}

// wantsETag tells a write's answer to carry the new ETag (see ifMatch).
func wantsETag(r *http.Request) bool { return r.Context().Value(etagWanted{}) != nil }

// writeLocks serialize guarded writes by resource path; striped so memory
// stays fixed.
type writeLocks [64]sync.Mutex

func (l *writeLocks) lock(key string) (unlock func()) {
	h := fnv.New32a()
	h.Write([]byte(key))
	m := &l[h.Sum32()%uint32(len(l))]
	m.Lock()
	return m.Unlock
}
