package translate

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func libreServer(t *testing.T, answer func(q []string) any) *LibreTranslate {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in libreRequest
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || r.URL.Path != "/translate" || in.Format != "text" || in.APIKey != "k" {
			w.WriteHeader(400)
			w.Write([]byte(`{"error":"bad request"}`))
			return
		}
		json.NewEncoder(w).Encode(answer(in.Q))
	}))
	t.Cleanup(srv.Close)
	return &LibreTranslate{URL: srv.URL + "/", Key: "k", HTTP: srv.Client()}
}

func TestLibreTranslateAnswers(t *testing.T) {
	ctx := context.Background()
	upper := libreServer(t, func(q []string) any {
		out := make([]string, len(q))
		for i, s := range q {
			out[i] = strings.ToUpper(s)
		}
		return map[string]any{"translatedText": out}
	})
	if got, err := upper.Translate(ctx, []string{"a b", "c"}, "en", "fr"); err != nil || strings.Join(got, "|") != "A B|C" {
		t.Fatalf("list: %v %v", got, err)
	}
	one := libreServer(t, func(q []string) any { return map[string]any{"translatedText": "X"} })
	if got, err := one.Translate(ctx, []string{"x"}, "en", "fr"); err != nil || got[0] != "X" {
		t.Fatalf("a server answering one string: %v %v", got, err)
	}
	short := libreServer(t, func(q []string) any { return map[string]any{"translatedText": []string{"only one"}} })
	var pe *ProviderError
	if _, err := short.Translate(ctx, []string{"a", "b"}, "en", "fr"); !errors.As(err, &pe) || !strings.Contains(err.Error(), "1 translations for 2 texts") {
		t.Fatalf("count mismatch: %v", err)
	}
	bad := *upper
	bad.Key = "wrong"
	if _, err := bad.Translate(ctx, []string{"a"}, "en", "fr"); !errors.As(err, &pe) || pe.Status != 400 || pe.Public() != "translation server answered 400: bad request" {
		t.Fatalf("refusal: %v", err)
	}
	// The server's address is in the log's detail, never in what a run's
	// error shows the organization's admins.
	gone := libreServer(t, func(q []string) any { return nil })
	gone.HTTP = &http.Client{Transport: &http.Transport{}}
	gone.URL = "http://127.0.0.1:1/secret-path"
	if _, err := gone.Translate(ctx, []string{"a"}, "en", "fr"); !errors.As(err, &pe) || !strings.Contains(err.Error(), "127.0.0.1:1") ||
		strings.Contains(pe.Public(), "127.0.0.1") || strings.Contains(pe.Public(), "secret-path") {
		t.Fatalf("unreachable server: public %q, detail %v", pe.Public(), err)
	}
	// An answer over MaxAnswer is refused, not truncated into a decoding error.
	huge := libreServer(t, func(q []string) any {
		return map[string]any{"translatedText": []string{strings.Repeat("x", MaxAnswer)}}
	})
	if _, err := huge.Translate(ctx, []string{"a"}, "en", "fr"); !errors.As(err, &pe) || !strings.Contains(pe.Public(), "larger than") {
		t.Fatalf("huge answer: %v", err)
	}
}

func TestBatchesAndAllOrNothing(t *testing.T) {
	texts := make([]string, 250)
	for i := range texts {
		texts[i] = "word"
	}
	texts[120] = strings.Repeat("x", batchChars) // alone in its batch
	var ranges []string
	for _, b := range batches(texts) {
		ranges = append(ranges, strconv.Itoa(b[0])+"-"+strconv.Itoa(b[1]))
	}
	if got := strings.Join(ranges, ","); got != "0-100,100-120,120-121,121-221,221-250" {
		t.Fatalf("batches %s", got)
	}
	var calls atomic.Int64
	failing := providerFunc(func(ctx context.Context, q []string, _, _ string) ([]string, error) {
		if calls.Add(1) == 2 {
			return nil, &ProviderError{Status: 503, Msg: "busy"}
		}
		return q, nil
	})
	if _, n, err := translateAll(context.Background(), failing, texts, "en", "fr", 1, time.Minute); err == nil || n != 5 || !strings.Contains(err.Error(), "busy") {
		t.Fatalf("a failed batch fails the run: n=%d err=%v", n, err)
	}
}

type providerFunc func(ctx context.Context, texts []string, source, target string) ([]string, error)

func (f providerFunc) Translate(ctx context.Context, texts []string, source, target string) ([]string, error) {
	return f(ctx, texts, source, target)
}
