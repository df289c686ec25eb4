package site

import (
	"net/http"
)

// signInForm is the member sign-in form (a personal API token).
type signInForm struct{ Action, CSRF, Next, Error string }

func (h *Handler) signInForm(w http.ResponseWriter, r *http.Request, t target, msg string, status int) {
	h.NotFound.ServeHTTP(w, r)
}

func (h *Handler) signIn(w http.ResponseWriter, r *http.Request, t target) {
	h.NotFound.ServeHTTP(w, r)
}
