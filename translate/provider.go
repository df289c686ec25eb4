// Package translate runs translations of spaces in the background: a
// pluggable machine-translation Provider (LibreTranslate shipped), and the
// Runner that mirrors a source space's page tree into a target space with
// every title and every prose run of the Markdown translated.
package translate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Provider translates texts from one language to another. It returns one
// translation per text, in order, or an error: never a partial answer.
type Provider interface {
	Translate(ctx context.Context, texts []string, source, target string) ([]string, error)
}

// Doer sends an HTTP request (fetch.Fetcher: the guarded client).
type Doer interface {
	Do(req *http.Request) (*http.Response, error)
}

// LibreTranslate is a client of a LibreTranslate-compatible server
// (https://github.com/LibreTranslate/LibreTranslate): POST {URL}/translate
// with {q: [texts], source, target, format: "text", api_key}, answered by
// {translatedText: [texts]}.
type LibreTranslate struct {
	URL  string // base URL of the server
	Key  string // api_key, when the server needs one
	HTTP Doer
}

// ProviderError is a failure of the translation server.
type ProviderError struct {
	Status int // HTTP status, 0 for transport failures
	Msg    string
}

func (e *ProviderError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("translation server answered %d: %s", e.Status, e.Msg)
	}
	return "translation server: " + e.Msg
}

type libreRequest struct {
	Q      []string `json:"q"`
	Source string   `json:"source"`
	Target string   `json:"target"`
	Format string   `json:"format"`
	APIKey string   `json:"api_key,omitempty"`
}

// maxAnswer bounds a server's answer (a batch is far smaller).
const maxAnswer = 16 << 20

func (l *LibreTranslate) Translate(ctx context.Context, texts []string, source, target string) ([]string, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	body, _ := json.Marshal(libreRequest{Q: texts, Source: source, Target: target, Format: "text", APIKey: l.Key})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(l.URL, "/")+"/translate", bytes.NewReader(body))
	if err != nil {
		return nil, &ProviderError{Msg: err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	res, err := l.HTTP.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &ProviderError{Msg: err.Error()}
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
	if err != nil {
		return nil, &ProviderError{Status: res.StatusCode, Msg: "reading the answer: " + err.Error()}
	}
	var ans struct {
		TranslatedText json.RawMessage `json:"translatedText"`
		Error          string          `json:"error"`
	}
	decodeErr := json.Unmarshal(raw, &ans)
	if res.StatusCode < 200 || res.StatusCode > 299 {
		msg := ans.Error
		if msg == "" {
			msg = strings.TrimSpace(string(raw[:min(len(raw), 200)]))
		}
		return nil, &ProviderError{Status: res.StatusCode, Msg: msg}
	}
	if decodeErr != nil {
		return nil, &ProviderError{Status: res.StatusCode, Msg: "the answer is not JSON: " + decodeErr.Error()}
	}
	var out []string
	if err := json.Unmarshal(ans.TranslatedText, &out); err != nil {
		// A server answering a one-text batch with a plain string.
		var one string
		if len(texts) != 1 || json.Unmarshal(ans.TranslatedText, &one) != nil {
			return nil, &ProviderError{Status: res.StatusCode, Msg: "translatedText is not a list of strings"}
		}
		out = []string{one}
	}
	if len(out) != len(texts) {
		return nil, &ProviderError{Status: res.StatusCode, Msg: fmt.Sprintf("%d translations for %d texts", len(out), len(texts))}
	}
	return out, nil
}

// Batch limits: texts per request and characters per request.
const (
	batchTexts = 100
	batchChars = 20000
)

// batches cuts texts into consecutive index ranges within the batch limits.
func batches(texts []string) [][2]int {
	var out [][2]int
	start, chars := 0, 0
	for i, t := range texts {
		if i > start && (i-start >= batchTexts || chars+len(t) > batchChars) {
			out = append(out, [2]int{start, i})
			start, chars = i, 0
		}
		chars += len(t)
	}
	if start < len(texts) {
		out = append(out, [2]int{start, len(texts)})
	}
	return out
}

// translateAll translates texts in batches, up to parallel requests at once.
// Any failed batch fails the whole: nothing half-translated is returned.
func translateAll(ctx context.Context, p Provider, texts []string, source, target string, parallel int) ([]string, int, error) {
	out := make([]string, len(texts))
	bs := batches(texts)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, max(parallel, 1))
	errs := make(chan error, len(bs))
	for _, b := range bs {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			got, err := p.Translate(ctx, texts[b[0]:b[1]], source, target)
			if err == nil && len(got) != b[1]-b[0] {
				err = &ProviderError{Msg: fmt.Sprintf("%d translations for %d texts", len(got), b[1]-b[0])}
			}
			if err != nil {
				cancel()
				errs <- err
				return
			}
			copy(out[b[0]:], got)
			errs <- nil
		}()
	}
	var first error
	for range bs {
		if err := <-errs; err != nil && (first == nil || errors.Is(first, context.Canceled)) {
			first = err
		}
	}
	return out, len(bs), first
}
