// Package apierr is the one error type every layer of docsapi returns to a
// caller. REST writes it as {"error":{"code":<status>,"message":...}} and the
// GraphQL presenter carries the same status and code in extensions, so both
// transports refuse a request with the same words.
package apierr

import (
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

// As finds an *Error in err's chain; anything else is an internal error,
// except a conflict with the stored state that no caller named more
// precisely (an error with a Conflict() method, such as a storage unique
// constraint): that is a 409 with its own message, never a 500.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	var c interface{ Conflict() string }
	if errors.As(err, &c) {
		return Conflict("%s", c.Conflict()), true
	}
	return nil, false
}

// Status is the HTTP status for any error: an *Error's own, else 500.
func Status(err error) int {
	if e, ok := As(err); ok {
		return e.Status
	}
	return http.StatusInternalServerError
}
