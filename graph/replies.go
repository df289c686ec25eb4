package graph

import (
	"context"
	"fmt"

	"github.com/99designs/gqlgen/graphql"

	"docsapi/graph/model"
	"docsapi/storage"
)

// Comment.replyList on a page of comments reads the first page of every
// thread of that page in one statement (storage.FirstReplies), decides
// access to the discussion once and loads the replies' authors and
// reactions in one more: a query's statements grow with its depth, not
// with its number of comments. A later page of one thread (a page
// argument), or a comment not reached through a list, is read alone.

// replyPages are the first pages of replies of one list of comments, by
// comment id.
type replyPages map[string]*model.CommentReplyList

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
	list := enclosingCommentList(ctx)
	if page != nil || list == nil {
		return r.listReplies(ctx, spaceID, cr, c.ID, format, page, limit)
	}
	if err := checkFormat(format); err != nil {
		return nil, err
	}
	pq, err := pageQuery(nil, limit)
	if err != nil {
		return nil, err
	}
	f := ""
	if format != nil {
		f = string(*format)
	}
	key := fmt.Sprintf("replies\x00%p\x00%s\x00%d", list, f, pq.Limit)
	pages, err := memo(ctx, key, func(ctx context.Context) (replyPages, error) {
		return r.firstReplies(ctx, spaceID, cr, list, format, pq.Limit)
	})
	if err != nil {
		return nil, err
	}
	if l, ok := pages[c.ID]; ok {
		return l, nil
	}
	return &model.CommentReplyList{Items: []*model.CommentReply{}}, nil
}

// enclosingCommentList is the page of comments the field being resolved
// is under, if any.
func enclosingCommentList(ctx context.Context) *model.CommentList {
	for fc := graphql.GetFieldContext(ctx); fc != nil; fc = fc.Parent {
		if l, ok := fc.Result.(*model.CommentList); ok {
			return l
		}
	}
	return nil
}

// firstReplies reads the first page of replies of every comment of list.
func (r *Resolver) firstReplies(ctx context.Context, spaceID string, crID *string, list *model.CommentList, format *model.PageFormat, limit int) (replyPages, error) {
	d, err := r.discussionOf(ctx, spaceID, crID)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(list.Items))
	for _, c := range list.Items {
		ids = append(ids, c.ID)
	}
	threads, err := r.Store.FirstReplies(ctx, d.key, ids, limit)
	if err != nil {
		return nil, err
	}
	var all []storage.Comment
	for _, p := range threads {
		all = append(all, p.Items...)
	}
	rel, err := r.relatedTo(ctx, d, all)
	if err != nil {
		return nil, err
	}
	out := make(replyPages, len(threads))
	for id, p := range threads {
		l := model.CommentReplyList(listOf(p, func(c storage.Comment) *model.CommentReply { return r.replyModel(d, rel, c, format) }))
		out[id] = &l
	}
	return out, nil
}
