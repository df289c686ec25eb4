package importer

import (
	"context"
	"errors"
	"fmt"

	"docsapi/fetch"
)

// Guarded adapts the shared guarded client (package fetch: loopback,
// private and link-local addresses refused after DNS resolution on every
// redirect, bounded size, time and redirects) to the importer's Fetcher.
// Limits are the deployment's import limits (zero fields: DefaultLimits).
type Guarded struct {
	F      *fetch.Fetcher
	Limits Limits
}

// ImportLimits gives Import the deployment's limits.
func (g Guarded) ImportLimits() Limits { return g.Limits }

// FetchError is a failed fetch, worded for the caller (a 400: the URL is
// the caller's input).
type FetchError struct{ Msg string }

func (e *FetchError) Error() string { return e.Msg }

func (g Guarded) Fetch(ctx context.Context, rawURL string) (*Resource, error) {
	res, err := g.F.Get(ctx, rawURL)
	if err != nil {
		var fe *fetch.Error
		if !errors.As(err, &fe) {
			return nil, err
		}
		var be *fetch.BlockedError
		switch {
		case errors.As(err, &be):
			return nil, &FetchError{Msg: "url: " + fe.Error()} // names the host, not what it resolved to
		case fe.Kind == fetch.KindStatus:
			return nil, &FetchError{Msg: fmt.Sprintf("url: fetching %s answered %d", fe.URL, fe.Status)}
		case fe.Kind == fetch.KindCanceled:
			return nil, err
		}
		return nil, &FetchError{Msg: "url: " + fe.Error()}
	}
	return &Resource{URL: res.URL, ContentType: res.ContentType, Body: res.Body}, nil
}
