package graph

import (
	"context"

	"docsapi/graph/model"
)

// replyBatcher is defined with the batched loading of replies below.
type replyBatcher struct{}

// replyListOf answers Comment.replyList.
func (r *Resolver) replyListOf(ctx context.Context, c *model.Comment, format *model.PageFormat, page *string, limit *int) (*model.CommentReplyList, error) {
	spaceID, err := enclosingSpace(ctx)
	if err != nil {
		return nil, err
	}
	var cr *string
	if c.Target != nil {
		cr = c.Target.ChangeRequest
	}
	return r.listReplies(ctx, spaceID, cr, c.ID, format, page, limit)
}
