package rest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/storage"
)

// Idempotency-Key: every POST and PUT under /v1 (so every create, today's
// and future families') may carry the header. The first request with a key
// runs; its 2xx answer is stored (status, Content-Type, Location, ETag and
// body) for 24 hours under the caller's token. A retry with the same key
// and the same request (method, path and query, and body up to JSON
// whitespace) gets that answer again, marked Idempotent-Replayed: true,
// without running. The same key with a different request is a 422. Error
// answers are not stored: nothing was created, and the caller may retry
// with the same key once the request is fixed.
//
// The key is recorded by the request's write itself: its row is inserted
// in the create's own write transaction (storage.WithCommitHook), so the
// key commits exactly when what it answers does, and the answer is filled
// in once written. A retry that finds the key without its answer never
// runs again: it is answered 409 (the first request is still being
// answered, on this replica or another, or its process stopped between
// the commit and storing the answer; the created resource exists, read it
// by its list). Two requests with one key on two replicas at once: one
// creates; the other's write finds the key taken, rolls back and answers
// 409, and its retries replay the first answer. On one replica, concurrent
// requests with one key wait for the first to finish, then replay it.

const (
	// IdempotencyTTL is how long a stored answer is replayed.
	IdempotencyTTL     = 24 * time.Hour
	idempotencyMaxBody = 1 << 20 // larger answers are not stored
)

// replayedHeaders are the headers of the first answer a replay repeats.
var replayedHeaders = []string{"Content-Type", "Location", "ETag"}

func (a *API) idempotent(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		caller, authenticated := auth.CallerFrom(r.Context())
		if key == "" || !authenticated || (r.Method != http.MethodPost && r.Method != http.MethodPut) {
			next.ServeHTTP(w, r)
			return
		}
		if len(key) > 255 {
			WriteError(w, r, a.Log, apierr.Invalid("Idempotency-Key", "must be at most 255 characters"))
			return
		}
		raw, err := io.ReadAll(r.Body)
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				err = apierr.New(http.StatusRequestEntityTooLarge, "request body is larger than %d bytes", tooLarge.Limit)
			} else {
				err = apierr.New(http.StatusBadRequest, "could not read the request body")
			}
			WriteError(w, r, a.Log, err)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(raw))
		fingerprint := requestFingerprint(r, raw)

		ctx := r.Context()
		release, err := a.keyLocks.acquire(ctx, caller.TokenID+"\x00"+key)
		if err != nil {
			return // the caller went away while waiting
		}
		defer release()

		store := a.Resolver.Store
		since := a.Resolver.Now().Add(-IdempotencyTTL)
		first, err := store.IdempotentResponse(ctx, caller.TokenID, key, since)
		switch {
		case err == nil && first.Fingerprint != fingerprint:
			WriteError(w, r, a.Log, apierr.New(http.StatusUnprocessableEntity,
				"Idempotency-Key: this key was already used with a different request (method, path or body) in the last 24 hours"))
			return
		case err == nil && first.Status == 0:
			WriteError(w, r, a.Log, errKeyPending)
			return
		case err == nil:
			replay(w, first)
			return
		case !errors.Is(err, storage.ErrNotFound):
			WriteError(w, r, a.Log, err)
			return
		}

		// The request's write records the key in its own transaction.
		owner := storage.NewID()
		reserved := false
		ctx = storage.WithCommitHook(ctx, func(tx *storage.Tx) error {
			ok, err := storage.ReserveIdempotencyKey(tx, caller.TokenID, key, fingerprint, owner, since)
			if err == nil && !ok {
				return errKeyPending // another replica's request holds the key: roll this write back
			}
			reserved = err == nil
			return err
		})
		rec := &recorder{ResponseWriter: w}
		next.ServeHTTP(rec, r.WithContext(ctx))
		// Stored (or dropped) even if the caller has gone: its retry must find it.
		keep := context.WithoutCancel(ctx)
		if rec.status < 200 || rec.status > 299 || rec.overflow {
			if reserved {
				// As for any failed request, a retry runs again.
				if err := a.Resolver.Store.DropIdempotencyKey(keep, caller.TokenID, key, owner); err != nil && a.Log != nil {
					a.Log.Error("dropping an idempotency key", "error", err, "method", r.Method, "path", r.URL.Path)
				}
			}
			return
		}
		headers := map[string]string{}
		for _, h := range replayedHeaders {
			if v := w.Header().Get(h); v != "" {
				headers[h] = v
			}
		}
		hjson, _ := json.Marshal(headers)
		if err := store.SaveIdempotentResponse(keep, caller.TokenID, key, storage.IdempotentResponse{
			Fingerprint: fingerprint, Status: rec.status, Headers: string(hjson), Body: rec.body.Bytes(),
		}); err != nil && a.Log != nil {
			a.Log.Error("storing an idempotent response", "error", err, "method", r.Method, "path", r.URL.Path)
		}
	})
}

// errKeyPending answers a request whose Idempotency-Key is recorded without
// its answer (see above).
var errKeyPending = apierr.Conflict("Idempotency-Key: a request with this key was accepted and its answer is not stored yet " +
	"(it is still being answered, or the server answering it stopped); retry later, or read the created resource")

// requestFingerprint identifies a request: method, path with query, and
// body with insignificant JSON whitespace removed.
func requestFingerprint(r *http.Request, body []byte) string {
	var compact bytes.Buffer
	if json.Compact(&compact, body) == nil {
		body = compact.Bytes()
	}
	h := sha256.New()
	io.WriteString(h, r.Method+" "+r.URL.RequestURI()+"\n")
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

func replay(w http.ResponseWriter, first storage.IdempotentResponse) {
	var headers map[string]string
	json.Unmarshal([]byte(first.Headers), &headers)
	for k, v := range headers {
		w.Header().Set(k, v)
	}
	w.Header().Set("Idempotent-Replayed", "true")
	w.WriteHeader(first.Status)
	w.Write(first.Body)
}

// recorder passes an answer through and keeps a copy of it.
type recorder struct {
	http.ResponseWriter
	status   int
	body     bytes.Buffer
	overflow bool
}

func (rec *recorder) WriteHeader(code int) {
	if rec.status == 0 {
		rec.status = code
	}
	rec.ResponseWriter.WriteHeader(code)
}

func (rec *recorder) Write(b []byte) (int, error) {
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	if rec.body.Len()+len(b) > idempotencyMaxBody {
		rec.overflow = true
	} else if !rec.overflow {
		rec.body.Write(b)
	}
	return rec.ResponseWriter.Write(b)
}

// keyLocks lets one request per idempotency key run at a time; the entry
// of a key lives only while requests hold or wait for it.
type keyLocks struct {
	mu sync.Mutex
	m  map[string]*keyLock
}

type keyLock struct {
	slot chan struct{}
	refs int
}

func (l *keyLocks) acquire(ctx context.Context, key string) (release func(), err error) {
	l.mu.Lock()
	if l.m == nil {
		l.m = map[string]*keyLock{}
	}
	k := l.m[key]
	if k == nil {
		k = &keyLock{slot: make(chan struct{}, 1)}
		l.m[key] = k
	}
	k.refs++
	l.mu.Unlock()
	done := func() {
		l.mu.Lock()
		if k.refs--; k.refs == 0 {
			delete(l.m, key)
		}
		l.mu.Unlock()
	}
	select {
	case k.slot <- struct{}{}:
		return func() { <-k.slot; done() }, nil
	case <-ctx.Done():
		done()
		return nil, ctx.Err()
	}
}
