package graph

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/importer"
	"docsapi/storage"
)

// Uploads let a user bring a file in without a web server of their own:
// generateStorageUploadURL answers a signed URL on docsapi itself, the file
// is PUT there (the signature is the authorization), and an import given
// that URL reads the upload from the database instead of fetching it, so no
// --allow-private-fetch is needed for the server's own address.
const (
	// UploadTTL is how long an upload URL takes a file and the file waits
	// to be used; the purge worker deletes older uploads.
	UploadTTL = time.Hour
	// DefaultUploadMaxBytes is the default largest upload: what a URL
	// import may download (server.DefaultImportMaxDownload), so that a
	// documentation repository's zip (600 assets, 130 MiB) comes in either
	// way.
	DefaultUploadMaxBytes = 256 << 20
	// maxUploadsReceiving bounds the uploads being received at once in
	// this process: each is held in memory once, at its declared size,
	// until it is stored; more wait for a slot (or their deadline).
	maxUploadsReceiving = 2
	// maxPendingUploads bounds the uploads an organization keeps waiting,
	// so one organization cannot fill the database with them.
	maxPendingUploads = 20
	uploadsPath       = "/uploads/"
)

func (r *Resolver) uploadMaxBytes() int64 {
	if r.Config.UploadMaxBytes > 0 {
		return r.Config.UploadMaxBytes
	}
	return DefaultUploadMaxBytes
}

// generateStorageUploadURL signs an upload URL for a member of orgID.
func (r *Resolver) generateStorageUploadURL(ctx context.Context, orgID string, in model.StorageUploadInput) (*model.StorageUploadURL, error) {
	s, err := r.inOrg(ctx, orgID)
	if err != nil {
		return nil, err
	}
	if err := RequireWrite(ctx); err != nil {
		return nil, err
	}
	if err := checkLen("file.name", in.File.Name, 1, 255); err != nil {
		return nil, err
	}
	if strings.ContainsAny(in.File.Name, "/\\") {
		return nil, apierr.Invalid("file.name", "must be a file name, without / or \\")
	}
	if err := checkLen("file.type", in.File.Type, 1, 255); err != nil {
		return nil, err
	}
	max := r.uploadMaxBytes()
	if in.File.Size < 1 || in.File.Size > float64(max) || in.File.Size != math.Trunc(in.File.Size) {
		return nil, apierr.Invalid("file.size", "must be a whole number of bytes from 1 to %d", max)
	}
	if !slices.Contains(model.StorageUploadKinds, in.Kind) {
		return nil, apierr.Invalid("kind", "must be one of %s", strings.Join(model.StorageUploadKinds, ", "))
	}
	c, _ := callerOf(ctx)
	key := storage.NewID()
	token, err := r.Signer.Sign(ctx, jwt.MapClaims{
		"sub": "upload", "key": key, "org": s.Org.ID, "user": c.UserID, "kind": in.Kind,
		"name": in.File.Name, "type": in.File.Type, "size": int64(in.File.Size),
		"exp": r.Now().Add(UploadTTL).Unix(),
	})
	if err != nil {
		return nil, err
	}
	return &model.StorageUploadURL{Object: "storage-signed-url", Key: key,
		URL: r.Config.PublicURL + uploadsPath + key + "?token=" + url.QueryEscape(token)}, nil
}

// ReceiveUpload stores the file PUT to an upload URL: key and token from
// the URL, body of exactly the size the URL was signed for.
func (r *Resolver) ReceiveUpload(ctx context.Context, key, token string, body io.Reader) (*model.StorageUploadURL, error) {
	claims, err := r.Signer.Verify(ctx, token)
	if err != nil || claims["sub"] != "upload" || claims["key"] != key {
		return nil, apierr.Unauthorized("the upload URL is invalid or has expired")
	}
	size, _ := claims["size"].(float64)
	org, _ := claims["org"].(string)
	pending, err := r.Store.PendingUploads(ctx, org, r.Now().Add(-UploadTTL))
	if err != nil {
		return nil, err
	}
	if pending >= maxPendingUploads {
		return nil, apierr.New(http.StatusTooManyRequests, "the organization has %d uploads waiting to be used; import them or wait an hour", pending)
	}
	select {
	case uploadsReceiving <- struct{}{}:
		defer func() { <-uploadsReceiving }()
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	// One buffer of the declared size (signed, at most --upload-max-bytes),
	// and one byte more than declared tells a longer body from an exact one.
	data, err := readExactly(body, int64(size))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge) || int64(len(data)) > int64(size):
		return nil, apierr.New(http.StatusRequestEntityTooLarge, "the file is larger than the %d bytes the upload URL was made for", int64(size))
	case err != nil:
		return nil, apierr.New(http.StatusBadRequest, "reading the file: %v", err)
	case int64(len(data)) != int64(size):
		return nil, apierr.New(http.StatusBadRequest, "the file has %d bytes, not the %d the upload URL was made for", len(data), int64(size))
	}
	name, _ := claims["name"].(string)
	kind, _ := claims["kind"].(string)
	contentType, _ := claims["type"].(string)
	err = r.Store.PutUpload(ctx, storage.Upload{Key: key, OrganizationID: org, Kind: kind, Name: name, ContentType: contentType, Size: int64(size), Bytes: data})
	if errors.Is(err, storage.ErrExists) {
		return nil, apierr.Conflict("a file was already uploaded to this URL")
	}
	if err != nil {
		return nil, err
	}
	return &model.StorageUploadURL{Object: "storage-signed-url", Key: key, URL: r.Config.PublicURL + uploadsPath + key}, nil
}

// uploadsReceiving holds a slot per upload being received.
var uploadsReceiving = make(chan struct{}, maxUploadsReceiving)

// readExactly reads body into one buffer of size bytes (no growth by
// doubling: a 256 MiB upload costs 256 MiB), then tries one byte more; a
// body longer than size answers size+1 bytes.
func readExactly(body io.Reader, size int64) ([]byte, error) {
	data := make([]byte, size+1)
	n, err := io.ReadFull(body, data[:size])
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return data[:n], nil
	}
	if err != nil {
		return data[:n], err
	}
	m, err := io.ReadFull(body, data[size:])
	if err == io.EOF {
		err = nil
	}
	return data[:int(size)+m], err
}

// uploadsFirst is the fetcher of orgID's imports: a URL of the service's
// own uploads reads the upload (the organization's own only), any other
// URL goes to next (the guarded outside fetch).
type uploadsFirst struct {
	r    *Resolver
	org  string
	next importer.Fetcher
}

func (r *Resolver) importFetcher(orgID string) importer.Fetcher {
	return uploadsFirst{r: r, org: orgID, next: r.Fetcher}
}

func (u uploadsFirst) Fetch(ctx context.Context, rawURL string) (*importer.Resource, error) {
	rest, ok := strings.CutPrefix(rawURL, u.r.Config.PublicURL+uploadsPath)
	if !ok {
		return u.next.Fetch(ctx, rawURL)
	}
	key, _, _ := strings.Cut(rest, "?")
	up, err := u.r.Store.Upload(ctx, key)
	if err == nil && (up.OrganizationID != u.org || u.r.Now().Sub(up.CreatedAt) > UploadTTL) {
		err = storage.ErrNotFound // another organization's upload is not there for this one
	}
	if err != nil {
		if errors.Is(err, storage.ErrNotFound) {
			return nil, &importer.FetchError{Msg: fmt.Sprintf("no upload %s: upload the file first (generateStorageUploadURL), within the hour", key)}
		}
		return nil, err
	}
	return &importer.Resource{URL: up.Name, ContentType: up.ContentType, Body: up.Bytes}, nil
}

// ImportLimits passes the outside fetcher's limits on (importer.limitsOf).
func (u uploadsFirst) ImportLimits() importer.Limits {
	if l, ok := u.next.(interface{ ImportLimits() importer.Limits }); ok {
		return l.ImportLimits()
	}
	return importer.Limits{}
}
