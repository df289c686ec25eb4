package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"docsapi/graph/model"
)

func init() { register(mountComments) }

// mountComments mounts the same comment operations under the space and the
// change request prefixes; changeRequest(r) tells them apart.
func mountComments(a *API, r chi.Router) {
	for _, prefix := range []string{"/spaces/{spaceId}", crPrefix} {
		mountCommentsAt(a, r, prefix)
	}
}

func mountCommentsAt(a *API, r chi.Router, prefix string) {
	format := func(r *http.Request) *model.PageFormat { return qEnum[model.PageFormat](r, "format") }
	r.Get(prefix+"/comments", a.ok(func(r *http.Request) (any, error) {
		pg, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.Comments(r.Context(), path(r, "spaceId"), changeRequest(r), qEnum[model.Order](r, "order"),
			qEnum[model.CommentStatusFilter](r, "status"), qStr(r, "targetPage"), r.URL.Query()["authors"], format(r), pg, limit)
	}))
	r.Post(prefix+"/comments", a.ok(func(r *http.Request) (any, error) {
		var in model.PostCommentInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.PostComment(r.Context(), path(r, "spaceId"), changeRequest(r), in)
	}))
	getComment := func(r *http.Request) (any, error) {
		return a.Q.Comment(r.Context(), path(r, "spaceId"), changeRequest(r), path(r, "commentId"), format(r))
	}
	r.Get(prefix+"/comments/{commentId}", a.resource(getComment))
	r.Put(prefix+"/comments/{commentId}", a.ifMatch(getComment, a.ok(func(r *http.Request) (any, error) {
		var in model.UpdateCommentInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.UpdateComment(r.Context(), path(r, "spaceId"), changeRequest(r), path(r, "commentId"), in)
	})))
	r.Delete(prefix+"/comments/{commentId}", a.ifMatch(getComment, a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		return a.M.DeleteComment(r.Context(), path(r, "spaceId"), changeRequest(r), path(r, "commentId"))
	})))
	r.Get(prefix+"/comments/{commentId}/replies", a.ok(func(r *http.Request) (any, error) {
		pg, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.CommentReplies(r.Context(), path(r, "spaceId"), changeRequest(r), path(r, "commentId"), format(r), pg, limit)
	}))
	r.Post(prefix+"/comments/{commentId}/replies", a.ok(func(r *http.Request) (any, error) {
		var in model.PostCommentReplyInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.PostCommentReply(r.Context(), path(r, "spaceId"), changeRequest(r), path(r, "commentId"), in, format(r))
	}))
	getReply := func(r *http.Request) (any, error) {
		return a.Q.CommentReply(r.Context(), path(r, "spaceId"), changeRequest(r), path(r, "commentId"), path(r, "commentReplyId"), format(r))
	}
	r.Get(prefix+"/comments/{commentId}/replies/{commentReplyId}", a.resource(getReply))
	r.Put(prefix+"/comments/{commentId}/replies/{commentReplyId}", a.ifMatch(getReply, a.ok(func(r *http.Request) (any, error) {
		var in model.UpdateCommentInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.UpdateCommentReply(r.Context(), path(r, "spaceId"), changeRequest(r), path(r, "commentId"), path(r, "commentReplyId"), in)
	})))
	r.Delete(prefix+"/comments/{commentId}/replies/{commentReplyId}", a.ifMatch(getReply, a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		return a.M.DeleteCommentReply(r.Context(), path(r, "spaceId"), changeRequest(r), path(r, "commentId"), path(r, "commentReplyId"))
	})))
	r.Get(prefix+"/commenters", a.ok(func(r *http.Request) (any, error) {
		pg, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.Commenters(r.Context(), path(r, "spaceId"), changeRequest(r), pg, limit)
	}))
}
