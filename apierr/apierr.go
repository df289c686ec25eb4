// Package apierr is the one error type every layer of docsapi returns to a
// caller. REST writes it as {"error":{"code":<status>,"message":...}} and the
// GraphQL presenter carries the same status and code in extensions, so both
// transports refuse a request with the same words.
package apierr

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// Error is a refusal that is safe to show to the caller.
type Error struct {
	Status  int    // HTTP status
	Message string // human sentence; names the field for validation errors
	Field   string // the input field at fault, when there is one
	// RetryAfter (seconds) is the Retry-After header of a 429, and
	// Challenge the WWW-Authenticate header of a 401 that is not about the
	// bearer token ("" for those).
	RetryAfter int
	Challenge  string
}

func (e *Error) Error() string { return e.Message }

// Code is the stable symbolic name of the status, used in GraphQL extensions.
func (e *Error) Code() string {
	switch e.Status {
	case http.StatusBadRequest:
		return "BAD_REQUEST"
	case http.StatusUnauthorized:
		return "UNAUTHENTICATED"
	case http.StatusForbidden:
		return "FORBIDDEN"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusMethodNotAllowed:
		return "METHOD_NOT_ALLOWED"
	case http.StatusRequestTimeout:
		return "REQUEST_TIMEOUT"
	case http.StatusConflict:
		return "CONFLICT"
	case http.StatusPreconditionFailed:
		return "PRECONDITION_FAILED"
	case http.StatusRequestEntityTooLarge:
		return "PAYLOAD_TOO_LARGE"
	case http.StatusUnsupportedMediaType:
		return "UNSUPPORTED_MEDIA_TYPE"
	case http.StatusUnprocessableEntity:
		return "UNPROCESSABLE"
	case http.StatusTooManyRequests:
		return "RATE_LIMITED"
	case http.StatusBadGateway:
		return "BAD_GATEWAY"
	case http.StatusNotImplemented:
		return "NOT_IMPLEMENTED"
	case http.StatusServiceUnavailable:
		return "UNAVAILABLE"
	default:
		return "INTERNAL"
	}
}

func New(status int, format string, args ...any) *Error {
	return &Error{Status: status, Message: fmt.Sprintf(format, args...)}
}

// Invalid reports a broken input rule: "title: must be at most 50 characters".
func Invalid(field, rule string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Field: field, Message: field + ": " + fmt.Sprintf(rule, args...)}
}

// NotFound is also the answer for resources of other organizations: a caller
// never learns that something it may not see exists.
func NotFound(what string) *Error {
	return &Error{Status: http.StatusNotFound, Message: what + " not found"}
}

func Forbidden(format string, args ...any) *Error {
	return New(http.StatusForbidden, format, args...)
}

func Unauthorized(msg string) *Error { return &Error{Status: http.StatusUnauthorized, Message: msg} }

func Conflict(format string, args ...any) *Error { return New(http.StatusConflict, format, args...) }

// Unavailable is a 503: the service cannot answer now, the client may try
// again after retryAfter seconds (0: no Retry-After).
func Unavailable(retryAfter int, format string, args ...any) *Error {
	return &Error{Status: http.StatusServiceUnavailable, Message: fmt.Sprintf(format, args...), RetryAfter: retryAfter}
}

// As finds an *Error in err's chain; anything else is an internal error,
// except a conflict with the stored state that no caller named more
// precisely (an error with a Conflict() method, such as a storage unique
// constraint): that is a 409 with its own message, never a 500; and an
// error a registered classifier recognises (the storage's "database
// unavailable": a 503 with Retry-After).
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	var c interface{ Conflict() string }
	if errors.As(err, &c) {
		return Conflict("%s", c.Conflict()), true
	}
	for _, classify := range classifiers {
		if e := classify(err); e != nil {
			return e, true
		}
	}
	return nil, false
}

// classifiers turn errors of packages apierr cannot import (the storage
// and its drivers) into refusals; registered at init, read-only after.
var classifiers []func(error) *Error

// RegisterClassifier adds f to the errors As recognises: f returns the
// refusal for an error it knows, else nil. Call it from an init function.
func RegisterClassifier(f func(error) *Error) { classifiers = append(classifiers, f) }

// Ended is the refusal for err when err is ctx's own end and that end's
// cause is an *Error (the server's request deadline: a 503 naming it);
// nil otherwise (a client that went away has no one to answer).
func Ended(ctx context.Context, err error) *Error {
	if ctx.Err() == nil || !errors.Is(err, ctx.Err()) {
		return nil
	}
	var e *Error
	if errors.As(context.Cause(ctx), &e) {
		return e
	}
	return nil
}

// Status is the HTTP status for any error: an *Error's own, else 500.
func Status(err error) int {
	if e, ok := As(err); ok {
		return e.Status
	}
	return http.StatusInternalServerError
}
