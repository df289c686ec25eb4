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
	"net/url"
	"strings"
	"time"
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

// ProviderError is a failure of the translation server. Msg is shown to
// the organization's admins (the run's error); Detail, which may name the
// server's address or quote its answer, goes to the log only (Error).
type ProviderError struct {
	Status int // HTTP status, 0 for transport failures
	Msg    string
	Detail string
}

func (e *ProviderError) Error() string {
	msg := e.Public()
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Public is the message a run's error shows.
func (e *ProviderError) Public() string {
	switch {
	case e.Msg != "" && e.Status != 0:
		return fmt.Sprintf("translation server answered %d: %s", e.Status, e.Msg)
	case e.Msg != "":
		return "translation server: " + e.Msg
	case e.Status != 0:
		return fmt.Sprintf("translation server answered %d; the server log has the detail", e.Status)
	}
	return "translation server: no usable answer (unreachable, or no answer in time); the server log has the detail"
}

type libreRequest struct {
	Q      []string `json:"q"`
	Source string   `json:"source"`
	Target string   `json:"target"`
	Format string   `json:"format"`
	APIKey string   `json:"api_key,omitempty"`
}

// MaxAnswer bounds a server's answer: a batch is at most 20,000
// characters, whose translation is far smaller than this even with every
// character escaped; a larger answer is refused, not truncated.
const MaxAnswer = 2 << 20

func (l *LibreTranslate) Translate(ctx context.Context, texts []string, source, target string) ([]string, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	body, _ := json.Marshal(libreRequest{Q: texts, Source: source, Target: target, Format: "text", APIKey: l.Key})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(l.URL, "/")+"/translate", bytes.NewReader(body))
	if err != nil {
		return nil, &ProviderError{Detail: err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	res, err := l.HTTP.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &ProviderError{Detail: err.Error()}
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, MaxAnswer+1))
	if err != nil {
		return nil, &ProviderError{Status: res.StatusCode, Detail: "reading the answer: " + err.Error()}
	}
	if len(raw) > MaxAnswer {
		return nil, &ProviderError{Status: res.StatusCode, Msg: fmt.Sprintf("the answer is larger than %d bytes", MaxAnswer)}
	}
	var ans struct {
		TranslatedText json.RawMessage `json:"translatedText"`
		Error          string          `json:"error"`
	}
	decodeErr := json.Unmarshal(raw, &ans)
	if res.StatusCode < 200 || res.StatusCode > 299 {
		// The server's own error field ("Invalid API key") helps the
		// admins; any other body (a proxy's page) is for the log only.
		pe := &ProviderError{Status: res.StatusCode, Detail: strings.TrimSpace(string(raw[:min(len(raw), 200)]))}
		if msg := l.showable(ans.Error); msg != "" {
			pe.Msg = msg
		}
		return nil, pe
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

// translateAll translates texts in batches, up to parallel requests at once,
// each within callTimeout. Any failed batch fails the whole: nothing
// half-translated is returned.
func translateAll(ctx context.Context, p Provider, texts []string, source, target string, parallel int, callTimeout time.Duration) ([]string, int, error) {
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
			got, err := translateOne(ctx, p, texts[b[0]:b[1]], source, target, callTimeout)
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

// translateOne is one provider request within its deadline; a request
// that outlives it is the provider's failure (the run's own end is not).
func translateOne(ctx context.Context, p Provider, texts []string, source, target string, timeout time.Duration) ([]string, error) {
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	got, err := p.Translate(callCtx, texts, source, target)
	if err != nil && ctx.Err() == nil && callCtx.Err() != nil {
		return nil, &ProviderError{Msg: fmt.Sprintf("no answer within %s", timeout), Detail: err.Error()}
	}
	return got, err
}

// showable is the server's error message as a run's error may show it:
// one line of at most 200 characters, and nothing that names the server
// ("" when it would).
func (l *LibreTranslate) showable(msg string) string {
	msg = strings.Join(strings.Fields(msg), " ")
	if r := []rune(msg); len(r) > 200 {
		msg = string(r[:200]) + "…"
	}
	if u, err := url.Parse(l.URL); err != nil || (u.Hostname() != "" && strings.Contains(msg, u.Hostname())) {
		return ""
	}
	return msg
}
